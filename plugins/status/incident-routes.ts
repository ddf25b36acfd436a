import type { Router } from 'express';
import { GatewayError, invalidRequest, type Catalogue, type Clock } from '../../src/plugin-api.js';
import { compileSchema } from '../../src/toolkit/json.js';
import { handled, sendJson, validBody } from '../../src/toolkit/routes.js';
import type { IncidentImpact, IncidentStatus, StatusStore } from './store/status.js';
import { incidentJson } from './report.js';

/** `/admin/v1/incidents`: operators open, update and resolve incidents shown on /status. */

const STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
const IMPACTS = ['minor', 'major', 'critical'] as const;

const fields = {
  title: { type: 'string', minLength: 1, maxLength: 200 },
  message: { type: 'string', minLength: 1, maxLength: 4000 },
  status: { enum: STATUSES },
  impact: { enum: IMPACTS },
  models: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1 } },
};
const createSchema = compileSchema({ type: 'object', additionalProperties: false, required: ['title'], properties: fields });
const patchSchema = compileSchema({ type: 'object', additionalProperties: false, minProperties: 1, properties: fields });

interface IncidentInput {
  title?: string;
  message?: string;
  status?: IncidentStatus;
  impact?: IncidentImpact;
  models?: string[];
}

export interface IncidentRouteDeps {
  store: StatusStore;
  catalogue: Catalogue;
  clock: Clock;
}

export function mountIncidentRoutes(router: Router, deps: IncidentRouteDeps): void {
  const { store, catalogue, clock } = deps;
  const send = (res: Parameters<typeof sendJson>[0], status: number, body: unknown): void => sendJson(res, status, JSON.stringify(body));
  const canonical = (ids: string[] | undefined): string[] | undefined =>
    ids?.map((id) => {
      const model = catalogue.resolve(id);
      if (!model) throw invalidRequest(`Unknown model '${id}' in models; GET /v1/models lists the available models.`, 'models');
      return model.id;
    });
  const notFound = (id: string): GatewayError => new GatewayError(404, `No incident with id '${id}'.`, { param: 'id' });

  router.post(
    '/incidents',
    handled(async (req, res) => {
      const input = validBody<IncidentInput & { title: string }>(req, createSchema);
      const status = input.status ?? 'investigating';
      const incident = await store.createIncident({
        title: input.title,
        status,
        impact: input.impact ?? 'minor',
        models: [...new Set(canonical(input.models) ?? [])],
        automatic: false,
        message: input.message ?? `Incident opened: ${status}.`,
        now: clock.now(),
      });
      send(res, 201, incidentJson(incident));
    }),
  );

  router.get(
    '/incidents',
    handled(async (_req, res) => {
      send(res, 200, { object: 'list', data: (await store.listIncidents(0)).map(incidentJson) });
    }),
  );

  router.get(
    '/incidents/:id',
    handled(async (req, res) => {
      const id = String(req.params['id']);
      const incident = await store.getIncident(id);
      if (!incident) throw notFound(id);
      send(res, 200, incidentJson(incident));
    }),
  );

  router.patch(
    '/incidents/:id',
    handled(async (req, res) => {
      const id = String(req.params['id']);
      const input = validBody<IncidentInput>(req, patchSchema);
      const models = canonical(input.models);
      const incident = await store.updateIncident(id, {
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.status !== undefined ? { status: input.status } : {}),
        ...(input.impact !== undefined ? { impact: input.impact } : {}),
        ...(models !== undefined ? { models: [...new Set(models)] } : {}),
        ...(input.message !== undefined ? { message: input.message } : {}),
        now: clock.now(),
      });
      if (!incident) throw notFound(id);
      send(res, 200, incidentJson(incident));
    }),
  );
}
