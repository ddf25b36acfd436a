import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError, invalidRequest, type Call, type JsonObject, type Usage } from '../../src/plugin-api.js';
import { parseUpstreamJson } from '../../src/toolkit/json.js';
import { withMembers } from '../../src/toolkit/json-text.js';
import { countAnswer, type ReplyOutput, type TranslatedBody } from '../../src/toolkit/neutral.js';
import { estimatedPrompt, estimatedReplyUsage, estimateInputTokens, estimateOutputTokens, textTokens } from '../../src/toolkit/token-estimate.js';
import type { LocalAnswer, StreamTranslator, Translator, UpstreamRequest } from '../../src/toolkit/vendor.js';
import { noteReferenceChoices } from './answer-notes.js';
import { gammaError } from './errors.js';
import { GammaEvents } from './events.js';
import { gammaReply } from './reply.js';
import { checkReasoningEffort, messagesWithoutReasoning } from './passthrough-reasoning.js';
import { gammaChatBody } from './request.js';
import { GammaStream, usageOf } from './stream.js';

/**
 * Gamma speaks the reference format. To a caller of that same format its translator is nearly
 * the identity (`GammaPassthrough`): the model becomes the upstream name, streams always ask
 * for usage (the ledger needs it) and the usage chunk is stripped again when the caller did not
 * ask; bytes pass through untouched whenever nothing needs rewriting. To a caller of another
 * format (`GammaTranslating`) the reference request is written from the neutral request and the
 * reference answer read into the neutral reply, which the caller's format renders.
 */

/** The wire format gamma's upstream speaks (the chat ingress's own). */
export const GAMMA_WIRE = 'openai-chat';

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

/**
 * The counts of a relayed reply whose vendor gave none: the gateway's estimates, billed (the
 * caller gets the body as the vendor sent it). Embeddings write nothing; a legacy completion's
 * output is its choices' text.
 */
function estimatedUsage(call: Call, endpoint: keyof typeof SHAPES, body: JsonObject): Usage {
  let completionTokens = 0;
  if (endpoint === 'chat.completions') completionTokens = estimateOutputTokens(gammaReply(body));
  else if (endpoint === 'completions') {
    for (const choice of body['choices'] as Array<JsonObject | null>) completionTokens += textTokens(String(choice?.['text'] ?? '').length);
  }
  return { promptTokens: estimatedPrompt(call), completionTokens, estimated: true };
}

export function createGammaTranslator(call: Call, apiKey: string | undefined, embeddingModel: string | null): Translator {
  return call.endpoint.format.wire === GAMMA_WIRE ? new GammaPassthrough(call, apiKey, embeddingModel) : new GammaTranslating(call, apiKey);
}

/** The headers of every gamma request. */
function gammaHeaders(stream: boolean, apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
  if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
  return headers;
}

export class GammaPassthrough implements Translator {
  private readonly upstreamModel: string;
  private readonly forceUsage: boolean;

  constructor(
    private readonly call: Call,
    private readonly apiKey: string | undefined,
    embeddingModel: string | null,
  ) {
    const model = call.model;
    if (!model) throw new GatewayError(500, 'gamma translator called without a model');
    if (call.endpoint.operation === 'embed') {
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
    checkReasoningEffort(body, call.model as NonNullable<Call['model']>);
    const messages = messagesWithoutReasoning(body['messages']);
    let bytes = call.rawJson as Buffer;
    const changes: JsonObject = {};
    if (body['model'] !== this.upstreamModel) changes['model'] = this.upstreamModel;
    if (this.forceUsage) changes['stream_options'] = { ...(body['stream_options'] ?? {}), include_usage: true };
    if (messages) changes['messages'] = messages;
    if (Object.keys(changes).length) {
      // Messages whose reasoning is taken out are rare, and written whole with the rest.
      bytes = (messages ? null : withMembers(bytes, [], changes)) ?? Buffer.from(JSON.stringify({ ...body, ...changes }));
    }
    return { path: PATHS[endpoint as keyof typeof PATHS], headers: gammaHeaders(call.stream, this.apiKey), body: bytes };
  }

  response(raw: Buffer): TranslatedBody {
    const endpoint = this.call.endpoint.name as keyof typeof SHAPES;
    const body = replyOf(raw, endpoint);
    const usage = usageOf(body['usage']) ?? estimatedUsage(this.call, endpoint, body);
    const notes = this.call.answerNotes;
    if (notes && endpoint !== 'embeddings') noteReferenceChoices(notes, body);
    const canonical = (this.call.model as NonNullable<Call['model']>).id;
    if (body['model'] === canonical) return { body: raw, usage };
    return { body: withMembers(raw, [], { model: canonical }) ?? JSON.stringify({ ...body, model: canonical }), usage };
  }

  stream(): StreamTranslator {
    return new GammaStream(this.call, this.apiKey);
  }

  error(status: number, headers: IncomingHttpHeaders, body: Buffer): GatewayError {
    return gammaError(status, headers, body, this.apiKey);
  }
}

/** For callers of another format: the neutral request to a reference chat request, the answer back through the caller's format. */
export class GammaTranslating implements Translator {
  private readonly output: ReplyOutput;

  constructor(
    private readonly call: Call,
    private readonly apiKey: string | undefined,
  ) {
    this.output = call.endpoint.format.output(call);
  }

  /** Gamma has no token count of its own: a count is the gateway's documented estimate, answered without the upstream. */
  request(): UpstreamRequest | LocalAnswer {
    const { call } = this;
    if (call.endpoint.operation === 'count_tokens') return { local: countAnswer(this.output, estimateInputTokens(call.request)) };
    const body = gammaChatBody(call.request, call.model as NonNullable<Call['model']>, call.stream, (param, action, refusal) =>
      call.adjust(param, action, refusal),
    );
    return { path: PATHS['chat.completions'], headers: gammaHeaders(call.stream, this.apiKey), body: Buffer.from(JSON.stringify(body)) };
  }

  response(raw: Buffer): TranslatedBody {
    const body = replyOf(raw, 'chat.completions');
    const reply = gammaReply(body);
    if (usageOf(body['usage']) === null) reply.usage = estimatedReplyUsage(this.call, reply);
    return this.output.render(reply);
  }

  stream(): StreamTranslator {
    return new GammaEvents(this.output.sink(), this.apiKey);
  }

  error(status: number, headers: IncomingHttpHeaders, body: Buffer): GatewayError {
    return gammaError(status, headers, body, this.apiKey);
  }
}
