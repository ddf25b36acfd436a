import express, { type Router } from 'express';
import type { Clock } from '../clock.js';
import { compileSchema } from '../config/validate.js';
import type { TrustedProxies } from '../http/client-address.js';
import { GatewayError } from '../http/errors.js';
import { handled, sendBody, validBody } from './admin-body.js';
import { keyJson, type KeyService, type KeySettingsInput } from '../keys/key-service.js';
import type { Store } from '../store/store.js';
import type { Logger } from 'pino';
import type { ImportService } from '../imports/import-service.js';
import { FailedAttemptLimiter, requireAdmin } from './admin-auth.js';
import { auditTrail } from './audit.js';
import { deploymentsJson, type DeploymentsView } from './deployments-route.js';
import { importsRouter } from './imports-routes.js';

const nullable = (schema: object): object => ({ anyOf: [schema, { type: 'null' }] });
const settingsProperties = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  models: nullable({ type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1 } }),
  monthly_ceiling_usd: nullable({ type: 'string', minLength: 1, maxLength: 32 }),
  monthly_upstream_limit_usd: nullable({ type: 'string', minLength: 1, maxLength: 32 }),
  expires_at: nullable({ type: 'string', minLength: 1, maxLength: 64 }),
  rpm_limit: nullable({ type: 'integer', minimum: 0, maximum: 1_000_000 }),
  // The response cache's bound on a time to live (plugins/response-cache: one day), as the request header's.
  cache_ttl_s: nullable({ type: 'integer', minimum: 0, maximum: 86_400 }),
};
const createKeySchema = compileSchema({ type: 'object', additionalProperties: false, required: ['name'], properties: settingsProperties });
const patchKeySchema = compileSchema({ type: 'object', additionalProperties: false, properties: settingsProperties });

export interface AdminDeps {
  /** Mounts the plugins' admin routes (behind the same token check). */
  mountPluginRoutes: (router: Router) => void;
  store: Store;
  keys: KeyService;
  imports: ImportService;
  clock: Clock;
  log: Logger;
  /** SHA-256 of the admin token, or null when none is configured (the API then refuses everything). */
  adminTokenHash: Buffer | null;
  /** Whose X-Forwarded-For names the client the failed-token lockout counts. */
  trustedProxies: TrustedProxies;
  /** The upstream deployments and their health (`GET /deployments`). */
  deployments: DeploymentsView;
}

/** Admin answers are never cached, sniffed or leaked through a Referer. */
const adminHeaders: express.RequestHandler = (_req, res, next) => {
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  next();
};

/** `/admin/v1`: key management per docs/api-contract.md#admin-api, imports, the audit trail, and plugins' admin routes. */
export function adminRouter(deps: AdminDeps): Router {
  const router = express.Router();
  const { store, keys, clock } = deps;
  const notFound = (id: string): GatewayError => new GatewayError(404, `No key with id '${id}'.`, { param: 'id' });
  const send = sendBody;

  router.use(adminHeaders);
  router.use(auditTrail(store.audit, clock, deps.log));
  router.use(requireAdmin(deps.adminTokenHash, new FailedAttemptLimiter(store.lockouts, clock), deps.trustedProxies));
  router.use('/imports', importsRouter(deps.imports));
  router.use(express.json({ limit: '1mb', type: () => true }));

  router.get(
    '/audit',
    handled(async (req, res) => {
      const limit = Math.min(Math.max(Number(req.query['limit']) || 200, 1), 1000);
      const entries = await store.audit.list(limit);
      send(res, 200, { object: 'list', data: entries.map((e) => ({ ...e, at: new Date(e.at).toISOString() })) });
    }),
  );

  router.get(
    '/deployments',
    handled(async (_req, res) => send(res, 200, await deploymentsJson(deps.deployments, clock.now()))),
  );

  router.post(
    '/keys',
    handled(async (req, res) => {
      const input = validBody<KeySettingsInput & { name: string }>(req, createKeySchema);
      const { key, value } = await keys.create(input);
      send(res, 201, keyJson(key, clock.now(), value));
    }),
  );

  router.get(
    '/keys',
    handled(async (_req, res) => {
      const now = clock.now();
      send(res, 200, { object: 'list', data: (await store.keys.list()).map((key) => keyJson(key, now)) });
    }),
  );

  router.get(
    '/keys/:id',
    handled(async (req, res) => {
      const id = String(req.params['id']);
      const key = await store.keys.get(id);
      if (!key) throw notFound(id);
      send(res, 200, keyJson(key, clock.now()));
    }),
  );

  router.patch(
    '/keys/:id',
    handled(async (req, res) => {
      const id = String(req.params['id']);
      const key = await keys.update(id, validBody<KeySettingsInput>(req, patchKeySchema));
      if (!key) throw notFound(id);
      send(res, 200, keyJson(key, clock.now()));
    }),
  );

  router.post(
    '/keys/:id/revoke',
    handled(async (req, res) => {
      const id = String(req.params['id']);
      const key = await keys.revoke(id);
      if (!key) throw notFound(id);
      send(res, 200, keyJson(key, clock.now()));
    }),
  );

  router.post(
    '/keys/:id/rotate',
    handled(async (req, res) => {
      const id = String(req.params['id']);
      const rotated = await keys.rotate(id);
      if (!rotated) throw notFound(id);
      send(res, 200, {
        ...keyJson(rotated.key, clock.now(), rotated.value),
        previous_valid_until: new Date(rotated.previousValidUntil).toISOString(),
      });
    }),
  );

  deps.mountPluginRoutes(router);
  return router;
}
