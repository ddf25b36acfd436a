import type { Request, Response, Router } from 'express';
import { GatewayError, modelNotFound, type Catalogue, type JsonObject, type ModelEntry } from '../../src/plugin-api.js';
import { sendJson } from '../../src/toolkit/routes.js';
import { messagesErrors } from './wire.js';

/**
 * `GET /v1/models` and `GET /v1/models/{id}` in the Messages list shape, for callers that send
 * `anthropic-version` (the official SDK always does); other callers get the reference shape of
 * src/http/models-routes.ts. Newest first, paged by `limit` (1–1000, default 20), `after_id` or
 * `before_id`, as the SDK's auto-pagination expects.
 */

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

const modelObject = (model: ModelEntry): JsonObject => ({
  type: 'model',
  id: model.id,
  display_name: model.id,
  created_at: new Date(model.created * 1000).toISOString(),
  max_tokens: model.maxOutputTokens,
});

const refuse = (res: Response, error: GatewayError): void => sendJson(res, error.status, messagesErrors.body(error));
const invalid = (message: string, param: string): GatewayError => new GatewayError(400, message, { param });

function query(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' ? value : undefined;
}

interface Page {
  data: ModelEntry[];
  hasMore: boolean;
}

/** The page a request asks for, or the 400 naming the paging parameter at fault. */
function page(models: readonly ModelEntry[], req: Request): Page | GatewayError {
  const rawLimit = query(req, 'limit');
  const limit = rawLimit === undefined ? DEFAULT_LIMIT : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return invalid(`limit must be an integer from 1 to ${MAX_LIMIT}.`, 'limit');
  const after = query(req, 'after_id');
  const before = query(req, 'before_id');
  if (after !== undefined && before !== undefined) return invalid('Give after_id or before_id, not both.', 'before_id');
  if (after === undefined && before === undefined) return { data: models.slice(0, limit), hasMore: limit < models.length };
  const param = after !== undefined ? 'after_id' : 'before_id';
  const cursor = (after ?? before) as string;
  const at = models.findIndex((model) => model.id === cursor);
  if (at < 0) return invalid(`${param} '${cursor}' is not a model of this list.`, param);
  if (after !== undefined) return { data: models.slice(at + 1, at + 1 + limit), hasMore: at + 1 + limit < models.length };
  return { data: models.slice(Math.max(0, at - limit), at), hasMore: at - limit > 0 };
}

export function mountMessagesModels(router: Router, catalogue: Catalogue): void {
  const models = [...catalogue.models].sort((a, b) => b.created - a.created || a.id.localeCompare(b.id));
  router.get('/v1/models', (req, res, next) => {
    if (req.headers['anthropic-version'] === undefined) {
      next();
      return;
    }
    const asked = page(models, req);
    if (asked instanceof GatewayError) {
      refuse(res, asked);
      return;
    }
    const { data, hasMore } = asked;
    sendJson(res, 200, JSON.stringify({ data: data.map(modelObject), has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }));
  });
  router.get('/v1/models/:id', (req, res, next) => {
    if (req.headers['anthropic-version'] === undefined) {
      next();
      return;
    }
    const id = req.params.id;
    const model = catalogue.resolve(id);
    if (!model) {
      refuse(res, modelNotFound(id));
      return;
    }
    sendJson(res, 200, JSON.stringify(modelObject(model)));
  });
}
