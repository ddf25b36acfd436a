import express, { type Request, type Response, type Router } from 'express';
import type { ErrorObject } from 'ajv';
import type { Clock } from '../clock.js';
import { compileSchema } from '../config/validate.js';
import { GatewayError, invalidRequest, toGatewayError } from '../http/errors.js';
import { sendError, sendJson } from '../http/respond.js';
import { keyJson, type KeyService, type KeySettingsInput } from '../keys/key-service.js';
import type { Store } from '../store/store.js';
import { requireAdmin } from './admin-auth.js';

const nullable = (schema: object): object => ({ anyOf: [schema, { type: 'null' }] });
const settingsProperties = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  models: nullable({ type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1 } }),
  monthly_ceiling_usd: nullable({ type: 'string', minLength: 1, maxLength: 32 }),
  expires_at: nullable({ type: 'string', minLength: 1, maxLength: 64 }),
  rpm_limit: nullable({ type: 'integer', minimum: 0, maximum: 1_000_000 }),
};
const createKeySchema = compileSchema({ type: 'object', additionalProperties: false, required: ['name'], properties: settingsProperties });
const patchKeySchema = compileSchema({ type: 'object', additionalProperties: false, properties: settingsProperties });

/** The first Ajv error as a 400 naming the field. */
function bodyError(errors: ErrorObject[] | null | undefined): GatewayError {
  const error = errors?.[0];
  if (!error) return invalidRequest('The request body is invalid.');
  const field =
    error.keyword === 'required' ? String(error.params['missingProperty'])
    : error.keyword === 'additionalProperties' ? String(error.params['additionalProperty'])
    : error.instancePath.split('/')[1] ?? null;
  const reason =
    error.keyword === 'required' ? 'is required'
    : error.keyword === 'additionalProperties' ? 'is not a known field'
    : error.keyword === 'anyOf' ? 'has the wrong type'
    : error.message ?? 'is invalid';
  return invalidRequest(`${field ?? 'body'} ${reason}.`, field);
}

/** The body checked against a compiled schema, or a 400 naming the field (for plugins' admin routes too). */
export function validBody<T>(req: Request, check: ReturnType<typeof compileSchema>): T {
  if (!check(req.body)) throw bodyError(check.errors);
  return req.body as T;
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** Wraps an async admin handler so every failure is answered in our envelope (plugins' admin routes use it too). */
export const handled =
  (handler: Handler): Handler =>
  async (req, res) => {
    try {
      await handler(req, res);
    } catch (error) {
      sendError(res, toGatewayError(error));
    }
  };

export interface AdminDeps {
  /** Mounts the plugins' admin routes (behind the same token check). */
  mountPluginRoutes: (router: Router) => void;
  store: Store;
  keys: KeyService;
  clock: Clock;
  /** SHA-256 of the admin token, or null when none is configured (the API then refuses everything). */
  adminTokenHash: Buffer | null;
}

/** `/admin/v1`: key management per decisions.md ("Admin API"). */
export function adminRouter(deps: AdminDeps): Router {
  const router = express.Router();
  const { store, keys, clock } = deps;
  const notFound = (id: string): GatewayError => new GatewayError(404, `No key with id '${id}'.`, { param: 'id' });
  const send = (res: Response, status: number, body: unknown): void => sendJson(res, status, JSON.stringify(body));

  router.use(requireAdmin(deps.adminTokenHash));
  router.use(express.json({ limit: '1mb', type: () => true }));

  router.post('/keys', handled(async (req, res) => {
    const input = validBody<KeySettingsInput & { name: string }>(req, createKeySchema);
    const { key, value } = await keys.create(input);
    send(res, 201, keyJson(key, clock.now(), value));
  }));

  router.get('/keys', handled(async (_req, res) => {
    const now = clock.now();
    send(res, 200, { object: 'list', data: (await store.keys.list()).map((key) => keyJson(key, now)) });
  }));

  router.get('/keys/:id', handled(async (req, res) => {
    const id = String(req.params['id']);
    const key = await store.keys.get(id);
    if (!key) throw notFound(id);
    send(res, 200, keyJson(key, clock.now()));
  }));

  router.patch('/keys/:id', handled(async (req, res) => {
    const id = String(req.params['id']);
    const key = await keys.update(id, validBody<KeySettingsInput>(req, patchKeySchema));
    if (!key) throw notFound(id);
    send(res, 200, keyJson(key, clock.now()));
  }));

  router.post('/keys/:id/revoke', handled(async (req, res) => {
    const id = String(req.params['id']);
    const key = await keys.revoke(id);
    if (!key) throw notFound(id);
    send(res, 200, keyJson(key, clock.now()));
  }));

  router.post('/keys/:id/rotate', handled(async (req, res) => {
    const id = String(req.params['id']);
    const rotated = await keys.rotate(id);
    if (!rotated) throw notFound(id);
    send(res, 200, {
      ...keyJson(rotated.key, clock.now(), rotated.value),
      previous_valid_until: new Date(rotated.previousValidUntil).toISOString(),
    });
  }));

  deps.mountPluginRoutes(router);
  return router;
}
