import type { IncomingHttpHeaders } from 'node:http';
import type { Call, JsonObject, Usage } from '../../src/chain/call.js';
import type { SseEvent, StreamTranslator, TranslatedBody, Translator, UpstreamRequest } from '../../src/chain/translator.js';
import { GatewayError, invalidRequest } from '../../src/http/errors.js';
import { parseUpstreamJson, tokenCount } from '../../src/reference/upstream-json.js';
import { gammaError, gammaStreamError } from './errors.js';

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

interface ReferenceUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
}

function usageOf(raw: unknown): Usage | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const usage = raw as ReferenceUsage;
  return { promptTokens: tokenCount(usage.prompt_tokens), completionTokens: tokenCount(usage.completion_tokens) };
}

/** Output deltas in one chunk: text, tool-call fragments, or legacy completion text. */
function deltasIn(chunk: JsonObject): number {
  const choices = chunk['choices'];
  if (!Array.isArray(choices)) return 0;
  let n = 0;
  for (const choice of choices as JsonObject[]) {
    const delta = choice['delta'] as JsonObject | undefined;
    if (delta && ((typeof delta['content'] === 'string' && delta['content'] !== '') || Array.isArray(delta['tool_calls']))) n += 1;
    else if (typeof choice['text'] === 'string' && choice['text'] !== '') n += 1;
  }
  return n;
}

/**
 * The fast path's reading of a chunk's raw JSON. Inside JSON strings every quote is escaped,
 * so an unescaped `"usage":{`, `"error"` or `,"usage":null` can only be a key of the chunk
 * itself (or, for `"error"`, a harmless false alarm that takes the slow path).
 */
const NULL_USAGE = ',"usage":null';
const OUTPUT_DELTA = /"(?:content|text)":"[^"]|"tool_calls":\[/;

class GammaStream implements StreamTranslator {
  usage: Usage | null = null;
  relayedDeltas = 0;

  constructor(
    private readonly canonical: string,
    /** Whether the upstream's model name differs from the canonical ID (every chunk is rewritten). */
    private readonly renamed: boolean,
    private readonly callerWantsUsage: boolean,
    /** The gateway's gamma key, scrubbed from relayed error messages. */
    private readonly credential: string | undefined,
  ) {}

  event(event: SseEvent): string {
    const data = event.data;
    if (data === '[DONE]') return '';
    return this.ordinaryChunk(data) ?? this.parsedChunk(data);
  }

  /**
   * Most chunks carry a delta and `"usage":null` (usage is always asked for upstream): relay
   * them without parsing, dropping the `usage` key the caller did not ask for. Returns null
   * for anything else (usage, errors, renamed models, unusual spacing): the parsed path.
   */
  private ordinaryChunk(data: string): string | null {
    // Not an object at all (garbage) goes to the parser, which refuses it.
    if (this.renamed || data.charCodeAt(0) !== 123 || data.charCodeAt(data.length - 1) !== 125) return null;
    if (data.includes('"usage":{') || data.includes('"error"')) return null;
    let out = data;
    if (!this.callerWantsUsage) {
      const at = data.indexOf(NULL_USAGE);
      if (at !== -1) {
        if (data.indexOf(NULL_USAGE, at + 1) !== -1) return null;
        out = data.slice(0, at) + data.slice(at + NULL_USAGE.length);
      } else if (data.includes('"usage"')) {
        return null;
      }
    }
    if (OUTPUT_DELTA.test(data)) this.relayedDeltas += 1;
    return `data: ${out}\n\n`;
  }

  private parsedChunk(data: string): string {
    const chunk = parseUpstreamJson(data, 'gamma', 'a stream event');
    const error = chunk['error'] as JsonObject | undefined;
    if (error) throw gammaStreamError(error, this.credential);
    if (chunk['usage']) this.usage = usageOf(chunk['usage']);
    const choices = chunk['choices'];
    const usageOnly = Array.isArray(choices) && choices.length === 0;
    if (usageOnly && !this.callerWantsUsage) return '';
    this.relayedDeltas += deltasIn(chunk);
    if (!this.renamed && (this.callerWantsUsage || !('usage' in chunk))) return `data: ${data}\n\n`;
    if (!this.callerWantsUsage) delete chunk['usage'];
    chunk['model'] = this.canonical;
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }

  end(): string {
    return '';
  }
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
    const body = parseUpstreamJson(raw.toString('utf8'), 'gamma', 'a response');
    const usage = usageOf(body['usage']);
    const canonical = (this.call.model as NonNullable<Call['model']>).id;
    if (body['model'] === canonical) return { body: raw, usage };
    body['model'] = canonical;
    return { body: JSON.stringify(body), usage };
  }

  stream(): StreamTranslator {
    const canonical = (this.call.model as NonNullable<Call['model']>).id;
    return new GammaStream(canonical, this.upstreamModel !== canonical, this.call.includeUsage, this.apiKey);
  }

  error(status: number, headers: IncomingHttpHeaders, body: Buffer): GatewayError {
    return gammaError(status, headers, body, this.apiKey);
  }
}
