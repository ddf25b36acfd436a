import { GatewayError, type Call, type JsonObject, type Usage } from '../../src/plugin-api.js';
import { parseUpstreamJson } from '../../src/toolkit/json.js';
import { ledgerUsage } from '../../src/toolkit/neutral.js';
import { referenceUsage } from '../../src/toolkit/reference-format.js';
import { SSE_DONE, sseErrorFrame, type SseEvent } from '../../src/toolkit/sse.js';
import { estimatedPrompt } from '../../src/toolkit/token-estimate.js';
import { tokenCount, type StreamTranslator } from '../../src/toolkit/vendor.js';
import { noteReferenceChoices } from './answer-notes.js';
import { gammaStreamError } from './errors.js';
import { gammaReplyUsage } from './reply.js';

/**
 * Gamma streams to a caller of the reference format are passed through: chunks are relayed as
 * they are whenever nothing needs rewriting, and parsed otherwise (usage, errors, a finish).
 * Every chunk's `model` is the canonical ID: the upstream answers a model asked by its short
 * name with a dated one (`gamma-5.4-2026-03-05`), which is replaced without parsing.
 *
 * A stream is whole exactly when each of the `n` choices asked for got its finish_reason:
 * the reference format ends every choice with one. `[DONE]` and the usage chunk are not taken
 * as proof: in a whole stream they follow the finish reasons, so seeing them without those
 * means frames were lost or invented on the way (a proxy may append `[DONE]` to a cut
 * stream), and the caller's client would be left without finish reasons anyway. Any other
 * end (closed cleanly too early; an empty body or an HTML page, which carry no events at
 * all) is a 502 error event, never a silently truncated success.
 */

/** The ledger's counts of a relayed reference usage object (its cached tokens priced apart), or null when there is none. */
export function usageOf(raw: unknown): Usage | null {
  if (typeof raw !== 'object' || raw === null) return null;
  return ledgerUsage(gammaReplyUsage(raw));
}

/** A chunk's `id`, or null when it has none (or is no JSON: the parsed path refuses it). */
function idOf(data: string): string | null {
  try {
    const id: unknown = (JSON.parse(data) as JsonObject | null)?.['id'];
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
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
/** A finish reason that is not null: such chunks take the parsed path, which records it. */
const FINISHED = /"finish_reason"\s*:\s*"/;
const MODEL_KEY = 'model":"';
const QUOTE = 34;
const BACKSLASH = 92;

export class GammaStream implements StreamTranslator {
  usage: Usage | null = null;
  relayedDeltas = 0;
  private readonly canonical: string;
  private readonly callerWantsUsage: boolean;
  /** Choices asked for (`n`), each of which must finish. */
  private readonly choices: number;
  private readonly finished = new Set<number>();
  private events = 0;
  /** The last chunk relayed: the envelope of a usage chunk the gateway writes in the vendor's stead. */
  private lastChunk = '';
  /** Where the id, finish reasons (and text) are noted, when a plugin asked (`call.noteAnswer`). */
  private readonly notes: Call['answerNotes'];
  /** Whether every chunk is parsed: when the notes keep the text, which the fast path does not read. */
  private readonly parsesAll: boolean;

  constructor(
    private readonly call: Call,
    /** The gateway's gamma key, scrubbed from relayed error messages. */
    private readonly credential: string | undefined,
  ) {
    this.canonical = (call.model as NonNullable<Call['model']>).id;
    this.callerWantsUsage = call.includeUsage;
    const n = call.body['n'];
    this.choices = typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 1;
    this.notes = call.answerNotes;
    this.parsesAll = (this.notes?.texts ?? null) !== null;
  }

  event(event: SseEvent): string {
    const data = event.data;
    this.events += 1;
    if (data === '[DONE]') return '';
    this.lastChunk = data;
    // The id, from the first chunk: a stream cut short has it too (the fast path reads no chunk).
    if (this.notes?.id === null) this.notes.id = idOf(data);
    return (this.parsesAll ? null : this.ordinaryChunk(data)) ?? this.parsedChunk(data);
  }

  /**
   * Most chunks carry a delta and `"usage":null` (usage is always asked for upstream): relay
   * them without parsing, with the canonical model, dropping the `usage` key the caller did not
   * ask for. Returns null for anything else (usage, errors, unusual spacing): the parsed path.
   */
  private ordinaryChunk(data: string): string | null {
    // Not an object at all (garbage) goes to the parser, which refuses it.
    if (data.charCodeAt(0) !== 123 || data.charCodeAt(data.length - 1) !== 125) return null;
    // Searched from the letter, not the quote (several times faster); a longer key that matches too only takes the parsed path.
    if (data.includes('usage":{') || data.includes('error"') || FINISHED.test(data)) return null;
    let out = this.withCanonicalModel(data);
    if (out === null) return null;
    if (!this.callerWantsUsage) {
      const at = out.indexOf(NULL_USAGE);
      if (at !== -1) {
        if (out.includes(NULL_USAGE, at + 1)) return null;
        out = out.slice(0, at) + out.slice(at + NULL_USAGE.length);
      } else if (out.includes('"usage"')) {
        return null;
      }
    }
    if (OUTPUT_DELTA.test(data)) this.relayedDeltas += 1;
    return `data: ${out}\n\n`;
  }

  /**
   * The chunk with the canonical ID as its `model`, or null (parsed path) unless that member is
   * plainly found. `"model":"` cannot lie inside a JSON string: there every quote follows a
   * backslash, and here one follows `model`. So when its first quote follows no backslash it is
   * a key with a string value, and with no `{` between the chunk's opening brace and it, the
   * chunk's own. Searched from the `m` (rarer than a quote: measured ~40% faster).
   */
  private withCanonicalModel(data: string): string | null {
    const at = data.indexOf(MODEL_KEY);
    if (at < 2 || data.charCodeAt(at - 1) !== QUOTE || data.charCodeAt(at - 2) === BACKSLASH) return null;
    const brace = data.indexOf('{', 1);
    if (brace !== -1 && brace < at) return null;
    const start = at + MODEL_KEY.length;
    const canonical = this.canonical;
    // The canonical ID holds no quote or backslash: followed by a quote, it is the whole value.
    if (data.startsWith(canonical, start) && data.charCodeAt(start + canonical.length) === QUOTE) return data;
    const end = data.indexOf('"', start);
    // An escape in the value (or no end to it) is the parser's to read.
    if (end === -1 || data.lastIndexOf('\\', end) >= start) return null;
    return data.slice(0, start) + canonical + data.slice(end);
  }

  private parsedChunk(data: string): string {
    const chunk = parseUpstreamJson(data, 'gamma', 'a stream event');
    const error = chunk['error'] as JsonObject | undefined;
    if (error) throw gammaStreamError(error, this.credential);
    if (chunk['usage']) this.usage = usageOf(chunk['usage']);
    if (this.notes) noteReferenceChoices(this.notes, chunk);
    const choices = chunk['choices'];
    if (Array.isArray(choices)) {
      for (const choice of choices as Array<JsonObject | null>) {
        if (typeof choice?.['finish_reason'] === 'string') this.finished.add(tokenCount(choice['index']));
      }
    }
    const usageOnly = Array.isArray(choices) && choices.length === 0;
    if (usageOnly && !this.callerWantsUsage) return '';
    this.relayedDeltas += deltasIn(chunk);
    if (chunk['model'] === this.canonical && (this.callerWantsUsage || !('usage' in chunk))) return `data: ${data}\n\n`;
    if (!this.callerWantsUsage) delete chunk['usage'];
    chunk['model'] = this.canonical;
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }

  done(): string {
    return SSE_DONE;
  }

  fail(error: GatewayError): string {
    return sseErrorFrame(error);
  }

  end(): string {
    if (this.events === 0) {
      throw new GatewayError(502, 'The gamma upstream answered the stream with an empty body or one that is not an event stream.');
    }
    for (let index = 0; index < this.choices; index++) {
      if (!this.finished.has(index)) {
        const message = `The gamma upstream ended the stream before choice ${index} finished (no finish_reason): the reply is incomplete.`;
        throw new GatewayError(502, message);
      }
    }
    return this.callerWantsUsage && this.usage === null ? this.estimatedUsageChunk() : '';
  }

  /**
   * The usage chunk a caller who asked for usage gets when the vendor sent none: what the ledger
   * bills then (the input estimate, the output deltas relayed), in the envelope of the stream.
   */
  private estimatedUsageChunk(): string {
    const { id, object, created } = parseUpstreamJson(this.lastChunk, 'gamma', 'a stream event');
    const usage = referenceUsage({ promptTokens: estimatedPrompt(this.call), completionTokens: this.relayedDeltas });
    return `data: ${JSON.stringify({ id, object, created, model: this.canonical, choices: [], usage })}\n\n`;
  }
}
