import { GatewayError, type JsonObject, type Usage } from '../../src/plugin-api.js';
import { parseUpstreamJson } from '../../src/toolkit/json.js';
import { ledgerUsage, type ReplyStream, type ReplyUsage } from '../../src/toolkit/neutral.js';
import type { SseEvent } from '../../src/toolkit/sse.js';
import { tokenCount, type StreamTranslator } from '../../src/toolkit/vendor.js';
import { gammaStreamError } from './errors.js';
import { gammaFinish, gammaReplyUsage } from './reply.js';
import { plainTextDelta } from './text-delta.js';

/**
 * Reference chunks from the gamma upstream → neutral events for a caller of another format
 * (the sink writes them in that format). A stream is whole when every choice that started got
 * its finish_reason; anything else is a 502, as for the passed-through stream.
 */
export class GammaEvents implements StreamTranslator {
  private vendorUsage: ReplyUsage | null = null;
  /** Per choice: tool-call index (the upstream's) → whether its first fragment was written. */
  private readonly calls = new Map<number, Set<number>>();
  private events = 0;

  constructor(
    private readonly sink: ReplyStream,
    /** The gateway's gamma key, scrubbed from relayed error messages. */
    private readonly credential: string | undefined,
  ) {}

  get usage(): Usage | null {
    return this.vendorUsage ? ledgerUsage(this.vendorUsage) : null;
  }

  get relayedDeltas(): number {
    return this.sink.relayedDeltas;
  }

  event(event: SseEvent): string {
    this.events += 1;
    if (event.data === '[DONE]') return '';
    const text = plainTextDelta(event.data);
    if (text !== null) return this.sink.start(0) + this.sink.text(0, text);
    const chunk = parseUpstreamJson(event.data, 'gamma', 'a stream event');
    const error = chunk['error'] as JsonObject | undefined;
    if (error) throw gammaStreamError(error, this.credential);
    if (chunk['usage']) this.vendorUsage = gammaReplyUsage(chunk['usage']);
    const choices = Array.isArray(chunk['choices']) ? (chunk['choices'] as JsonObject[]) : [];
    let out = '';
    for (const choice of choices) out += this.choice(choice);
    return out;
  }

  private choice(raw: JsonObject): string {
    const index = tokenCount(raw['index']);
    let out = this.sink.start(index);
    const delta = (raw['delta'] ?? {}) as JsonObject;
    if (typeof delta['content'] === 'string') out += this.sink.text(index, delta['content']);
    if (typeof delta['refusal'] === 'string') out += this.sink.refusal(index, delta['refusal']);
    if (Array.isArray(delta['tool_calls'])) for (const call of delta['tool_calls'] as JsonObject[]) out += this.toolFragment(index, call);
    if (typeof raw['finish_reason'] === 'string') out += this.sink.finish(index, gammaFinish(raw['finish_reason']));
    return out;
  }

  private toolFragment(choice: number, call: JsonObject): string {
    const index = tokenCount(call['index']);
    const fn = (call['function'] ?? {}) as JsonObject;
    const fragment = typeof fn['arguments'] === 'string' ? fn['arguments'] : '';
    const seen = this.calls.get(choice) ?? new Set<number>();
    this.calls.set(choice, seen);
    if (seen.has(index)) return this.sink.toolArguments(choice, index, fragment);
    seen.add(index);
    return this.sink.toolCall(choice, index, { id: String(call['id'] ?? ''), name: String(fn['name'] ?? ''), arguments: fragment });
  }

  end(): string {
    if (this.events === 0) throw new GatewayError(502, 'The gamma upstream answered the stream with an empty body or one that is not an event stream.');
    if (!this.sink.complete)
      throw new GatewayError(502, 'The gamma upstream ended the stream before every choice finished (no finish_reason): the reply is incomplete.');
    return this.sink.close(this.vendorUsage);
  }

  done(): string {
    return this.sink.done();
  }

  fail(error: GatewayError): string {
    return this.sink.fail(error);
  }
}
