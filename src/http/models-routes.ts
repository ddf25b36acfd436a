import type { Express } from 'express';
import type { Catalogue, ModelEntry } from '../catalogue/catalogue.js';
import { modelNotFound } from './errors.js';
import { sendError, sendJson } from './respond.js';
import { discardUnreadUpload } from './unread-upload.js';

const modelObject = (model: ModelEntry): Record<string, unknown> => ({
  id: model.id,
  object: 'model',
  created: model.created,
  owned_by: model.ownedBy,
  family: model.family,
});

/** The model-list paths (Express patterns), documented: another method is the edge's 405. */
export const MODEL_PATHS = ['/v1/models', '/v1/models/:id'] as const;

/**
 * `GET /v1/models` (no key) and `GET /v1/models/{id}` from the catalogue, serialised once at boot.
 * A body sent along is never read: discarded for a bounded time (see discardUnreadUpload).
 */
export function mountModelRoutes(app: Express, catalogue: Catalogue): void {
  const list = JSON.stringify({ object: 'list', data: catalogue.models.map(modelObject) });
  const single = new Map(catalogue.models.map((m) => [m.id, JSON.stringify(modelObject(m))]));
  app.get([...MODEL_PATHS], (req, res, next) => {
    discardUnreadUpload(req, res);
    next();
  });
  app.get('/v1/models', (_req, res) => sendJson(res, 200, list));
  app.get('/v1/models/:id', (req, res) => {
    const id = req.params.id;
    const model = catalogue.resolve(id);
    if (!model) {
      sendError(res, modelNotFound(id));
      return;
    }
    sendJson(res, 200, single.get(model.id) as string);
  });
}
