import type { JsonObject, Usage } from '../../src/chain/call.js';
import type { SseEvent, StreamTranslator } from '../../src/chain/translator.js';
import { parseUpstreamJson, tokenCount } from '../../src/reference/upstream-json.js';
import { gammaStreamError } from './errors.js';

/**
 * Gamma streams are the reference format's own: chunks are relayed as they are whenever
 * nothing needs rewriting, and parsed otherwise (usage, errors, a renamed model).
 */

interface ReferenceUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
}

export function usageOf(raw: unknown): Usage | null {
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

export class GammaStream implements StreamTranslator {
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
