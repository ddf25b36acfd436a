import { GatewayError, type JsonObject } from '../../src/plugin-api.js';
import type { EmbeddingsRequest } from '../../src/toolkit/reference-format.js';
import { textTokens } from '../../src/toolkit/token-estimate.js';

/** Reference embeddings ⇄ beta `:batchEmbedContents` (one entry per input, in order). */

export const batchEmbedPath = (model: string): string => `v1beta/models/${encodeURIComponent(model)}:batchEmbedContents`;

export function batchEmbedBody(request: EmbeddingsRequest, model: string): JsonObject {
  return {
    requests: request.texts.map((text) => ({
      model: `models/${model}`,
      content: { parts: [{ text }] },
      ...(request.dimensions !== null ? { outputDimensionality: request.dimensions } : {}),
    })),
  };
}

export function batchEmbedVectors(body: JsonObject, expected: number): number[][] {
  const embeddings = body['embeddings'];
  if (!Array.isArray(embeddings) || embeddings.length !== expected) {
    throw new GatewayError(502, `The beta upstream answered ${Array.isArray(embeddings) ? embeddings.length : 'no'} embeddings for ${expected} inputs.`);
  }
  return embeddings.map((entry: JsonObject | null) => {
    const values = entry?.['values'];
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'number'))
      throw new GatewayError(502, 'The beta upstream sent an embedding that is not a list of numbers.');
    return values;
  });
}

/** The input tokens of an embeddings call, which beta does not count: the gateway's estimate, a token per 4 characters of each input (at least 1). */
export const embeddingTokens = (texts: readonly string[]): number => texts.reduce((sum, text) => sum + textTokens(text.length), 0);
