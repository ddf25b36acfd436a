import { GatewayError, type JsonObject, type Usage } from '../../src/plugin-api.js';
import { parseUpstreamJson } from '../../src/toolkit/json.js';
import { ledgerUsage, type ReasoningState, type ReplyStream, type ReplyUsage } from '../../src/toolkit/neutral.js';
import type { SseEvent } from '../../src/toolkit/sse.js';
import { tokenCount, type StreamTranslator } from '../../src/toolkit/vendor.js';
import { betaStreamError } from './errors.js';
import { referenceLogprobs } from './logprobs.js';
import { betaFinish, betaUsage, partsOf, readPart, type RememberSignature } from './response.js';
import { textTurnId } from './thought-signatures.js';

/**
 * Beta `?alt=sse` chunks (each a whole GenerateContentResponse with only the new parts) →
 * the caller's stream, through the ingress format's sink (docs/vendor-formats.md#beta-stream).
 * Function calls arrive whole, possibly spread over chunks, and get a running index per choice
 * (the first only with `parallel_tool_calls: false`); thought parts are reasoning, and a part's
 * thought signature is the state of the candidate's reasoning, written before the part's call:
 * it ends the run in progress, or, when the run's output already began (the signature on the
 * first call), the sink gives it to that run, as the whole reply's one run holds it; one on the
 * last text part of a turn without calls is kept by the gateway, not written (`signature`);
 * usage is the last chunk's (none at all: the sink shows the estimate the ledger bills).
 */
export class BetaStream implements StreamTranslator {
  private readonly toolCalls = new Map<number, number>();
  /** The text written so far, per choice. */
  private readonly texts = new Map<number, string>();
  private vendorUsage: ReplyUsage | null = null;

  constructor(
    private readonly writer: ReplyStream,
    private readonly remember: RememberSignature,
    /** `parallel_tool_calls: false`: the first call of a choice only. */
    private readonly oneCall: boolean,
    /** The gateway's beta key, scrubbed from relayed error messages. */
    private readonly credential: string | undefined,
  ) {}

  get relayedDeltas(): number {
    return this.writer.relayedDeltas;
  }

  get usage(): Usage | null {
    return this.vendorUsage ? ledgerUsage(this.vendorUsage) : null;
  }

  event(event: SseEvent): string {
    const chunk = parseUpstreamJson(event.data, 'beta', 'a stream event');
    if (chunk['error']) throw betaStreamError(chunk, this.credential);
    if (chunk['usageMetadata']) this.vendorUsage = betaUsage(chunk['usageMetadata']);
    const candidates = Array.isArray(chunk['candidates']) ? (chunk['candidates'] as JsonObject[]) : [];
    if (!candidates.length) {
      const blocked = (chunk['promptFeedback'] as JsonObject | undefined)?.['blockReason'];
      return blocked ? this.writer.finish(0, 'content_filter') : '';
    }
    let out = '';
    for (const candidate of candidates) out += this.candidate(candidate);
    return out;
  }

  done(): string {
    return this.writer.done();
  }

  fail(error: GatewayError): string {
    return this.writer.fail(error);
  }

  end(): string {
    if (!this.writer.complete) throw new GatewayError(502, 'The beta upstream ended the stream before a finish reason.');
    return this.writer.close(this.vendorUsage);
  }

  /**
   * A part's thought signature. One that comes after the turn's text, with no call in the turn
   * (beta signs the last part of such a turn), would only fit after the text, where a caller
   * takes it for the end of the answer: it is kept by the gateway under the text's digest
   * instead, and given back on the turn's last part when the caller replays the turn.
   */
  private signature(choice: number, signature: ReasoningState, onCall: boolean): string {
    const text = this.texts.get(choice);
    if (onCall || !text || this.toolCalls.has(choice)) return this.writer.reasoningState(choice, signature);
    this.remember(textTurnId(text), signature.data);
    return '';
  }

  private candidate(candidate: JsonObject): string {
    const choice = tokenCount(candidate['index']);
    let out = this.writer.start(choice);
    const logprobs = referenceLogprobs(candidate['logprobsResult']);
    for (const raw of partsOf(candidate)) {
      const part = readPart(raw, this.remember);
      if (part.thought !== undefined) out += this.writer.reasoning(choice, part.thought);
      if (part.text !== undefined) {
        out += this.writer.text(choice, part.text, logprobs);
        this.texts.set(choice, (this.texts.get(choice) ?? '') + part.text);
      }
      if (part.signature) out += this.signature(choice, part.signature, part.call !== undefined);
      const index = this.toolCalls.get(choice) ?? 0;
      if (part.call && !(this.oneCall && index > 0)) {
        this.toolCalls.set(choice, index + 1);
        out += this.writer.toolCall(choice, index, part.call);
      }
    }
    if (candidate['finishReason']) out += this.writer.finish(choice, betaFinish(candidate['finishReason'], this.toolCalls.has(choice)));
    return out;
  }
}
