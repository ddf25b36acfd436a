import type { Request, Response, Router } from 'express';
import { GatewayError, modelNotFound, type Catalogue, type JsonObject, type ModelEntry } from '../../src/plugin-api.js';
import { sendJson } from '../../src/toolkit/routes.js';
import { geminiErrors } from './wire.js';

/**
 * `GET /v1beta/models` and `GET /v1beta/models/{model}` (the `models/` prefix accepted) in the
 * Gemini shape, from the catalogue: every model of every family, paged by `pageSize` (1–1000,
 * default 50) and the `nextPageToken` of the page before. Like `GET /v1/models`, no key is needed.
 */

const DEFAULT_PAGE = 50;
const MAX_PAGE = 1000;

const modelObject = (model: ModelEntry): JsonObject => ({
  name: `models/${model.id}`,
  baseModelId: model.id,
  version: model.id,
  displayName: model.id,
  description: `${model.id}, a ${model.family} model served by the gateway.`,
  outputTokenLimit: model.maxOutputTokens,
  supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
  thinking: model.reasoning.style !== 'none',
});

const refuse = (res: Response, error: GatewayError): void => sendJson(res, error.status, geminiErrors.body(error));

function query(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The page asked for: `pageToken` is the id of the last model of the page before. */
function page(models: readonly ModelEntry[], req: Request): JsonObject | GatewayError {
  const rawSize = query(req, 'pageSize');
  const size = rawSize === undefined ? DEFAULT_PAGE : Number(rawSize);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE)
    return new GatewayError(400, `pageSize must be an integer from 1 to ${MAX_PAGE}.`, { param: 'pageSize' });
  const token = query(req, 'pageToken');
  const from = token === undefined ? 0 : models.findIndex((model) => model.id === token) + 1;
  if (from === 0 && token !== undefined) return new GatewayError(400, `pageToken '${token}' is not a token this list gave.`, { param: 'pageToken' });
  const data = models.slice(from, from + size);
  const out: JsonObject = { models: data.map(modelObject) };
  if (from + size < models.length) out['nextPageToken'] = data.at(-1)?.id;
  return out;
}

export function mountGeminiModels(router: Router, catalogue: Catalogue): void {
  const models = catalogue.models;
  router.get('/v1beta/models', (req, res) => {
    const asked = page(models, req);
    if (asked instanceof GatewayError) refuse(res, asked);
    else sendJson(res, 200, JSON.stringify(asked));
  });
  router.get(['/v1beta/models/:id', '/v1beta/models/models/:id'], (req, res) => {
    const id = String(req.params['id']);
    const model = catalogue.resolve(id);
    if (model) sendJson(res, 200, JSON.stringify(modelObject(model)));
    else refuse(res, modelNotFound(`models/${id}`));
  });
}
