import type { JsonObject } from '../chain/call.js';
import type { FinishReason, ReplyToolCall, ReplyUsage } from './reply.js';
import type { ReasoningState } from './request.js';

/**
 * The neutral events of one streamed reply. A vendor's stream translator says what happened
 * (the message began, reasoning, text, a refusal, a tool call and its argument fragments, the
 * finish, the usage); the ingress format's sink keeps its own rules and returns the SSE text to
 * send for each event ('' for nothing): reference chunks, Responses events or Messages events.
 */
export interface ReplySink {
  /**
   * A choice begins (idempotent). `usage`: the counts known at the start, where the vendor
   * gives them then (alpha's `message_start`); the Messages format must report real input
   * tokens in its first event.
   */
  start(choice: number, usage?: ReplyUsage | null): string;
  /** A fragment of reasoning text (thinking). */
  reasoning(choice: number, text: string): string;
  /**
   * The opaque state that ends the current reasoning run (a signature), or a redacted run. A
   * state that comes after the run's output began (beta's thought signature on its first call or
   * last text part) belongs to that run: each format attaches it to the run as far as its
   * stream can (docs/vendor-formats.md#beta-stream).
   */
  reasoningState(choice: number, state: ReasoningState): string;
  /** A text delta, with its reference-format logprobs when the caller asked for them. */
  text(choice: number, text: string, logprobs?: JsonObject | null): string;
  /** A fragment of the model's refusal to answer (gamma's `delta.refusal`): never dropped, each format writes it its way. */
  refusal(choice: number, text: string): string;
  /** The first fragment of a tool call (`index` counts this choice's tool calls from 0). */
  toolCall(choice: number, index: number, call: ReplyToolCall): string;
  toolArguments(choice: number, index: number, fragment: string): string;
  /** A choice ends, once. */
  finish(choice: number, reason: FinishReason): string;
  /**
   * The stream's closing frames, with the final usage; null when the vendor gave none, and the
   * format then shows what the ledger bills: the gateway's input estimate and `relayedDeltas`.
   */
  close(usage: ReplyUsage | null): string;
  /** Whether every choice that started has finished (and at least one did). */
  readonly complete: boolean;
  /** Output deltas written so far: the fallback count when a stream is cut short. */
  readonly relayedDeltas: number;
}
