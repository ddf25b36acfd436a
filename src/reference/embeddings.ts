import type { JsonObject } from '../chain/call.js';
import { invalidRequest } from '../http/errors.js';
import { refuseUnknownFields } from './unknown-fields.js';

/**
 * The reference `/v1/embeddings` shapes for families whose vendor speaks another format:
 * reading the input texts (refusing what the translation would drop), and rendering vectors as
 * floats or — `encoding_format: "base64"`, what the official Node client asks for by default —
 * as base64 of little-endian float32.
 */

export interface EmbeddingsRequest {
  texts: string[];
  base64: boolean;
  dimensions: number | null;
}

/**
 * The reference format's embeddings parameters. `user` is taken with no effect (no vendor that
 * translates embeddings has an end-user identifier); anything else would be dropped unseen, so
 * it is refused by name.
 */
const EMBEDDINGS_PARAMETERS = new Set(['model', 'input', 'encoding_format', 'dimensions', 'user']);

export function parseEmbeddingsRequest(body: JsonObject): EmbeddingsRequest {
  refuseUnknownFields(body, EMBEDDINGS_PARAMETERS, 'an embeddings parameter');
  const input = body['input'];
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [];
  texts.forEach((text, i) => {
    const param = typeof input === 'string' ? 'input' : `input[${i}]`;
    if (typeof text !== 'string') throw invalidRequest(`${param} must be a string: token-id input is not supported for this model.`, param);
    if (text === '') throw invalidRequest(`${param} must not be empty.`, param);
  });
  return {
    texts: texts as string[],
    base64: body['encoding_format'] === 'base64',
    dimensions: typeof body['dimensions'] === 'number' ? body['dimensions'] : null,
  };
}

export function float32Base64(values: readonly number[]): string {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => buffer.writeFloatLE(value, i * 4));
  return buffer.toString('base64');
}

export function embeddingsBody(vectors: readonly number[][], request: EmbeddingsRequest, model: string, promptTokens: number): JsonObject {
  return {
    object: 'list',
    model,
    data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: request.base64 ? float32Base64(vector) : vector })),
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
