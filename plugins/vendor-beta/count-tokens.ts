import { GatewayError, type JsonObject } from '../../src/plugin-api.js';

/**
 * Beta's own token count, `POST …/models/{model}:countTokens`, for the Messages format's
 * `count_tokens`: the whole GenerateContentRequest is counted (`generateContentRequest`), so the
 * system instruction and the tool declarations count too, as they do in a reply's usage.
 */

export const countTokensPath = (model: string): string => `v1beta/models/${encodeURIComponent(model)}:countTokens`;

export const countTokensBody = (generate: JsonObject, model: string): JsonObject => ({ generateContentRequest: { model: `models/${model}`, ...generate } });

/** `totalTokens` of the vendor's answer; an answer without it is not a count (502). */
export function countedTokens(body: JsonObject): number {
  const total = body['totalTokens'];
  if (typeof total !== 'number') throw new GatewayError(502, 'The beta upstream sent a token count without totalTokens.');
  return total;
}
