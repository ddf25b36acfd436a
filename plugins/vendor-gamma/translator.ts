import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError, invalidRequest, parseUpstreamJson, type Call, type JsonObject, type StreamTranslator, type TranslatedBody, type Translator, type UpstreamRequest } from '../../src/plugin-api.js';
import { gammaError } from './errors.js';
import { GammaStream, usageOf } from './stream.js';

/**
 * Gamma speaks the reference format, so its translator is nearly the identity: the model
 * becomes the upstream name, streams always ask for usage (the ledger needs it) and the usage
 * chunk is stripped again when the caller did not ask. Bytes pass through untouched whenever
 * nothing needs rewriting.
 */

const PATHS = {
  'chat.completions': 'v1/chat/completions',
  completions: 'v1/completions',
  embeddings: 'v1/embeddings',
} as const;

/** What a non-streamed 2xx body of each endpoint must have: its non-empty list of results. */
const SHAPES = {
  'chat.completions': { field: 'choices', what: 'a chat completion' },
  completions: { field: 'choices', what: 'a completion' },
  embeddings: { field: 'data', what: 'an embeddings list' },
} as const;

/** The upstream's 2xx body, refused (502) unless it is JSON of the endpoint's shape. */
function replyOf(raw: Buffer, endpoint: keyof typeof SHAPES): JsonObject {
  const body = parseUpstreamJson(raw.toString('utf8'), 'gamma', 'a response');
  const { field, what } = SHAPES[endpoint];
  const list = body[field];
  if (!Array.isArray(list) || list.length === 0) {
    throw new GatewayError(502, `The gamma upstream answered with JSON that is not ${what} (no ${field}).`);
  }
  return body;
}

export class GammaTranslator implements Translator {
  private readonly upstreamModel: string;
  private readonly forceUsage: boolean;

  constructor(
    private readonly call: Call,
    private readonly apiKey: string | undefined,
    embeddingModel: string | null,
  ) {
    const model = call.model;
    if (!model) throw new GatewayError(500, 'gamma translator called without a model');
    if (call.endpoint.name === 'embeddings') {
      if (!embeddingModel || !model.capabilities.has('embeddings')) {
        throw invalidRequest(`The model '${model.id}' does not offer embeddings.`, 'model');
      }
      this.upstreamModel = embeddingModel;
    } else {
      this.upstreamModel = model.upstream;
    }
    this.forceUsage = call.stream && !call.includeUsage;
  }

  request(): UpstreamRequest {
    const { call } = this;
    const endpoint = call.endpoint.name;
    if (endpoint === 'usage') throw new GatewayError(500, 'usage is not an upstream endpoint');
    const body = call.body;
    let bytes = call.rawJson as Buffer;
    if (body['model'] !== this.upstreamModel || this.forceUsage) {
      const out: JsonObject = { ...body, model: this.upstreamModel };
      if (this.forceUsage) out['stream_options'] = { ...((body['stream_options'] as JsonObject | null) ?? {}), include_usage: true };
      bytes = Buffer.from(JSON.stringify(out));
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: call.stream ? 'text/event-stream' : 'application/json' };
    if (this.apiKey) headers['authorization'] = `Bearer ${this.apiKey}`;
    return { path: PATHS[endpoint], headers, body: bytes };
  }

  response(raw: Buffer): TranslatedBody {
    const body = replyOf(raw, this.call.endpoint.name as keyof typeof SHAPES);
    const usage = usageOf(body['usage']);
    const canonical = (this.call.model as NonNullable<Call['model']>).id;
    if (body['model'] === canonical) return { body: raw, usage };
    body['model'] = canonical;
    return { body: JSON.stringify(body), usage };
  }

  stream(): StreamTranslator {
    const canonical = (this.call.model as NonNullable<Call['model']>).id;
    return new GammaStream(this.call, this.upstreamModel !== canonical, this.apiKey);
  }

  error(status: number, headers: IncomingHttpHeaders, body: Buffer): GatewayError {
    return gammaError(status, headers, body, this.apiKey);
  }
}
