import type { Call, GatewayError, JsonObject } from '../../src/plugin-api.js';
import type { FinishReason, ReasoningState, ReplyStream, ReplyToolCall, ReplyUsage } from '../../src/toolkit/neutral.js';
import { functionCallPart, placeSignature, signsItsText, type GeminiEnvelope } from './render.js';
import { finishReason, geminiChunk, geminiError, usageMetadata } from './wire.js';

/**
 * Writes one streamed reply as Gemini chunks (docs/formats/gemini.md#stream): each a whole
 * `GenerateContentResponse` holding only the new parts, as `data:` lines js-genai parses. Text and
 * thoughts go as they come; function calls arrive whole in this format, so they are held until the
 * finish and written in the last chunk, with the finish reason, the usage and the lead thought
 * signature — which is written only after completion (`done`), so the ledger row is committed
 * before the last byte. No `[DONE]`: the end of the body ends the stream.
 */
export class GeminiStreamWriter implements ReplyStream {
  relayedDeltas = 0;
  private finished: FinishReason | null = null;
  private refused = false;
  /** The state of the turn's first reasoning run: placed where Gemini puts its signature. */
  private lead: ReasoningState | null = null;
  private readonly calls: ReplyToolCall[] = [];
  /** Thinking text not shown, until its run's state says whether it must be (signsItsText). */
  private hidden = '';
  /** The last chunk, held from `close` to `done`. */
  private last = '';

  constructor(
    private readonly envelope: GeminiEnvelope,
    /** Input tokens to report when the vendor gives no usage. */
    private readonly estimatedInput: number,
    /** Where the id, finish reason and text are noted, when a plugin asked (`call.noteAnswer`). */
    private readonly notes: Call['answerNotes'] = null,
  ) {
    if (notes) notes.id = envelope.responseId;
  }

  get complete(): boolean {
    return this.finished !== null;
  }

  start(): string {
    return '';
  }

  reasoning(_choice: number, text: string): string {
    if (text === '') return '';
    this.relayedDeltas += 1;
    if (this.envelope.thoughts) return this.chunk([{ text, thought: true }]);
    // Not shown unless its state turns out to be a signature over it (signsItsText).
    this.hidden += text;
    return '';
  }

  /**
   * A run's state: with the hidden text it signs, a thought part of its own; else the first is the
   * lead (held for the last chunk), and a later one goes on a thought part of its own when thoughts are shown.
   */
  reasoningState(_choice: number, state: ReasoningState): string {
    const hidden = this.hidden;
    this.hidden = '';
    if (hidden !== '' && signsItsText(state)) return this.chunk([{ text: hidden, thought: true, thoughtSignature: this.envelope.seal(state) }]);
    if (this.lead === null) {
      this.lead = state;
      return '';
    }
    return this.envelope.thoughts ? this.chunk([{ text: '', thought: true, thoughtSignature: this.envelope.seal(state) }]) : '';
  }

  text(_choice: number, text: string): string {
    if (text === '') return '';
    this.relayedDeltas += 1;
    this.notes?.text(0, text);
    return this.chunk([{ text }]);
  }

  refusal(_choice: number, text: string): string {
    if (text !== '') this.refused = true;
    return this.text(0, text);
  }

  toolCall(_choice: number, _index: number, call: ReplyToolCall): string {
    this.calls.push({ ...call });
    this.relayedDeltas += 1;
    return '';
  }

  toolArguments(_choice: number, index: number, fragment: string): string {
    const call = this.calls[index];
    if (call && fragment !== '') {
      call.arguments += fragment;
      this.relayedDeltas += 1;
    }
    return '';
  }

  finish(_choice: number, reason: FinishReason): string {
    this.finished ??= reason;
    return '';
  }

  /** Builds the last chunk (the calls, the lead signature, the finish reason, the usage) and holds it for `done`. */
  close(usage: ReplyUsage | null): string {
    const finish = this.finished ?? 'stop';
    const parts = this.calls.map((call) => functionCallPart(call, finish, this.envelope.family));
    placeSignature(parts, this.lead, this.envelope);
    if (!parts.length) parts.push({ text: '' });
    const counts = usage ?? { promptTokens: this.estimatedInput, completionTokens: this.relayedDeltas };
    const reason = this.refused ? 'SAFETY' : finishReason(finish);
    this.notes?.finished(0, reason);
    this.last = geminiChunk({
      candidates: [{ content: { role: 'model', parts }, finishReason: reason, index: 0 }],
      usageMetadata: usageMetadata(counts),
      modelVersion: this.envelope.modelVersion,
      responseId: this.envelope.responseId,
    });
    return '';
  }

  done(): string {
    return this.last;
  }

  /** A bare JSON error object, not `data:`-framed: what js-genai raises mid-stream. */
  fail(error: GatewayError): string {
    return JSON.stringify(geminiError(error));
  }

  private chunk(parts: JsonObject[]): string {
    return geminiChunk({
      candidates: [{ content: { role: 'model', parts }, index: 0 }],
      modelVersion: this.envelope.modelVersion,
      responseId: this.envelope.responseId,
    });
  }
}
