import express, { type Router } from 'express';
import { compileSchema } from '../config/validate.js';
import { GatewayError } from '../http/errors.js';
import type { ImportRequest, ImportService } from '../imports/import-service.js';
import { handled, sendBody, validBody } from './admin-body.js';

/** Uploaded exports can be large; the rest of the admin API keeps its 1 MB limit. */
const IMPORT_BODY_LIMIT = '16mb';

const importSchema = compileSchema({
  type: 'object',
  additionalProperties: false,
  required: ['key'],
  properties: {
    key: { type: 'string', minLength: 1, maxLength: 512 },
    label: { type: 'string', maxLength: 200 },
    history: {
      type: 'object',
      additionalProperties: false,
      required: ['format', 'content'],
      properties: { format: { enum: ['csv', 'json'] }, content: { type: 'string', minLength: 1 } },
    },
    fetch: { type: 'boolean' },
  },
});

/** `/admin/v1/imports`: keys of other gateways, vendors and aggregators, their mirrored history and projected savings. */
export function importsRouter(imports: ImportService): Router {
  const router = express.Router();
  const notFound = (id: string): GatewayError => new GatewayError(404, `No import with id '${id}'.`, { param: 'id' });
  router.use(express.json({ limit: IMPORT_BODY_LIMIT, type: () => true }));

  router.post(
    '/',
    handled(async (req, res) => {
      const { json, created } = await imports.importKey(validBody<ImportRequest>(req, importSchema));
      sendBody(res, created ? 201 : 200, json);
    }),
  );

  router.get(
    '/',
    handled(async (_req, res) => {
      sendBody(res, 200, { object: 'list', data: await imports.list(), connectors: imports.connectorKinds() });
    }),
  );

  router.get(
    '/:id',
    handled(async (req, res) => {
      const id = String(req.params['id']);
      const found = await imports.get(id);
      if (!found) throw notFound(id);
      sendBody(res, 200, found);
    }),
  );

  router.delete(
    '/:id',
    handled(async (req, res) => {
      const id = String(req.params['id']);
      if (!(await imports.remove(id))) throw notFound(id);
      sendBody(res, 200, { id, deleted: true });
    }),
  );

  return router;
}
