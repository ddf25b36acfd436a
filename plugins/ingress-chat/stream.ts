import type { Call, GatewayError, JsonObject } from '../../src/plugin-api.js';
import type { FinishReason, ReasoningState, ReplyEnvelope, ReplyStream, ReplyToolCall, ReplyUsage, SealState } from '../../src/toolkit/neutral.js';
import { referenceUsage } from '../../src/toolkit/reference-format.js';
import { SSE_DONE, sseErrorFrame } from '../../src/toolkit/sse.js';
import { usageOrEstimate } from '../../src/toolkit/token-estimate.js';
import { thinkingBlock } from './render.js';

/**
 * Writes the reference format's SSE chunks for one streamed reply, so that every vendor
 * stream translator only says what happened (text, a refusal, a tool call, its argument
 * fragments, the finish) and this class keeps the rules: one id/created/model for all chunks,
 * the role delta first per choice, `id`/`type`/`name` only in a call's first fragment, exactly
 * one finish chunk per choice, `"usage": null` on every chunk and one usage chunk with
 * `choices: []` at the end only when the caller asked (`stream_options.include_usage`), and
 * `data: [DONE]` after completion. Reasoning goes as `reasoning_content` deltas, and each
 * run's state as one `thinking_blocks` delta when the run ends; a refusal as `refusal` deltas.
 * In legacy mode (`/v1/completions`) chunks are `text_completion` with `text` (a refusal's
 * too; no reasoning).
 */
export class ReferenceStreamWriter implements ReplyStream {
  /** Output deltas written so far (text, refusal and tool-call fragments), the fallback usage count. */
  relayedDeltas = 0;
  private readonly started = new Set<number>();
  private readonly finished = new Set<number>();
  /** Per choice: the reasoning text of the run not yet ended by its state. */
  private readonly runs = new Map<number, string>();
  /** A chunk's JSON up to its `choices` (`data: {"id":…,"model":…`), for the text-delta fast path. */
  private readonly chunkHead: string;

  constructor(
    private readonly envelope: ReplyEnvelope,
    private readonly legacy: boolean,
    private readonly includeUsage: boolean,
    /** The gateway's input estimate of the call, asked only for a usage chunk the vendor gave no count for. */
    private readonly estimatePrompt: () => number,
    /** How the call seals the reasoning states it hands out. */
    private readonly seal: SealState,
    /** Where the id, finish reasons and text are noted, when a plugin asked (`call.noteAnswer`). */
    private readonly notes: Call['answerNotes'] = null,
  ) {
    const { id, created, model } = envelope;
    if (notes) notes.id = id;
    this.chunkHead = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${JSON.stringify(created)},"model":${JSON.stringify(model)}`;
  }

  /** The role delta of a choice, once (legacy completions have none). The reference stream reports usage only at its end. */
  start(choice: number): string {
    if (this.started.has(choice)) return '';
    this.started.add(choice);
    if (this.legacy) return '';
    return this.chunk(choice, { role: 'assistant', content: '' }, null);
  }

  /** A text delta, with its reference-format logprobs when the caller asked for them. */
  text(choice: number, text: string, logprobs: JsonObject | null = null): string {
    if (text === '') return this.start(choice);
    this.relayedDeltas += 1;
    this.notes?.text(choice, text);
    const head = this.start(choice);
    if (this.legacy) return head + this.legacyChunk(choice, text, null);
    return head + (logprobs ? this.chunk(choice, { content: text }, null, logprobs) : this.textChunk(choice, text));
  }

  /** A refusal fragment as a `refusal` delta; a legacy completion has only text, so there it is text. */
  refusal(choice: number, text: string): string {
    if (text === '') return this.start(choice);
    this.relayedDeltas += 1;
    this.notes?.text(choice, text);
    const head = this.start(choice);
    return head + (this.legacy ? this.legacyChunk(choice, text, null) : this.chunk(choice, { refusal: text }, null));
  }

  /** Reasoning text as `reasoning_content` deltas (legacy completions carry none). */
  reasoning(choice: number, text: string): string {
    const head = this.start(choice);
    if (text === '' || this.legacy) return head;
    this.relayedDeltas += 1;
    this.runs.set(choice, (this.runs.get(choice) ?? '') + text);
    return head + this.chunk(choice, { reasoning_content: text }, null);
  }

  /** The state that ends a reasoning run: the run as one `thinking_blocks` delta. */
  reasoningState(choice: number, state: ReasoningState): string {
    const head = this.start(choice);
    if (this.legacy) return head;
    const text = this.runs.get(choice) ?? '';
    this.runs.delete(choice);
    return head + this.chunk(choice, { thinking_blocks: [thinkingBlock(text, state, this.seal)] }, null);
  }

  /** The first fragment of a tool call (`index` counts tool calls of this choice from 0). */
  toolCall(choice: number, index: number, call: ReplyToolCall): string {
    const head = this.start(choice);
    if (call.arguments !== '') this.relayedDeltas += 1;
    const fragment = { index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
    return head + this.chunk(choice, { tool_calls: [fragment] }, null);
  }

  toolArguments(choice: number, index: number, fragment: string): string {
    if (fragment === '') return '';
    this.relayedDeltas += 1;
    return this.chunk(choice, { tool_calls: [{ index, function: { arguments: fragment } }] }, null);
  }

  finish(choice: number, reason: FinishReason): string {
    if (this.finished.has(choice)) return '';
    const head = this.start(choice);
    this.finished.add(choice);
    this.notes?.finished(choice, reason);
    return head + (this.legacy ? this.legacyChunk(choice, '', reason) : this.chunk(choice, {}, reason));
  }

  /** Whether every choice that started has finished (and at least one did). */
  get complete(): boolean {
    return this.finished.size > 0 && [...this.started].every((choice) => this.finished.has(choice));
  }

  /** The usage chunk, when the caller asked for it: the vendor's counts, else the ledger's estimate. */
  close(usage: ReplyUsage | null): string {
    if (!this.includeUsage) return '';
    return this.frame([], referenceUsage(usageOrEstimate(usage, this.estimatePrompt, this.relayedDeltas)));
  }

  done(): string {
    return SSE_DONE;
  }

  /** One last frame with our envelope (openai-node raises it as an APIError). */
  fail(error: GatewayError): string {
    return sseErrorFrame(error);
  }

  private chunk(index: number, delta: JsonObject, finish: FinishReason | null, logprobs: JsonObject | null = null): string {
    return this.frame([{ index, delta, logprobs, finish_reason: finish }], null);
  }

  /**
   * The most frequent chunk of a stream, written without building its objects: the same bytes
   * as chunk(index, { content: text }, null) (test/unit/reference-stream-writer.test.ts holds that).
   */
  private textChunk(index: number, text: string): string {
    const choice = `{"index":${index},"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}`;
    return `${this.chunkHead},"choices":[${choice}]${this.includeUsage ? ',"usage":null' : ''}}\n\n`;
  }

  private legacyChunk(index: number, text: string, finish: FinishReason | null): string {
    return this.frame([{ text, index, logprobs: null, finish_reason: finish }], null);
  }

  private frame(choices: JsonObject[], usage: JsonObject | null): string {
    const { id, created, model } = this.envelope;
    const chunk: JsonObject = { id, object: this.legacy ? 'text_completion' : 'chat.completion.chunk', created, model, choices };
    if (this.includeUsage) chunk['usage'] = usage;
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
}
