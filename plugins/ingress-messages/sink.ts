import { GatewayError, type Call, type JsonObject } from '../../src/plugin-api.js';
import type { FinishReason, ReasoningState, ReplyStream, ReplyToolCall, ReplyUsage } from '../../src/toolkit/neutral.js';
import type { MessageEnvelope } from './render.js';
import { isRedacted, messagesError, messagesEvent, messagesUsage, stopReason } from './wire.js';

/**
 * Writes one streamed reply as Messages events (docs/formats/messages.md#stream): `message_start`
 * first, with real, non-zero input tokens (the vendor's where it gives them at the start, else
 * the estimate; the exact count follows in `message_delta`); then per block
 * `content_block_start` → deltas → `content_block_stop`, indexes contiguous from 0 in start
 * order (thinking ends with its one `signature_delta`; a refusal is a text block of its own and
 * makes the stop reason `refusal`); `message_delta` with the stop reason and cumulative usage;
 * and `message_stop` only after completion. The Messages format has one choice.
 */

/** `refusal`: the model's refusal, written as a text block of its own (the Messages format has no refusal block). */
type BlockKind = 'text' | 'refusal' | 'thinking' | 'redacted' | 'tool';

export class MessagesStreamWriter implements ReplyStream {
  relayedDeltas = 0;
  private started = false;
  private finished: FinishReason | null = null;
  /** Whether the model refused (the stop reason is then `refusal`). */
  private refused = false;
  private blocks = 0;
  private open: { kind: BlockKind; index: number } | null = null;
  /** The caller-side index of each tool call → its block's index. */
  private readonly toolBlocks = new Map<number, number>();

  constructor(
    private readonly envelope: MessageEnvelope,
    /** Input tokens to report at the start when the vendor gives none then. */
    private readonly estimatedInput: number,
    /** Where the id, stop reason and text are noted, when a plugin asked (`call.noteAnswer`). */
    private readonly notes: Call['answerNotes'] = null,
  ) {
    if (notes) notes.id = envelope.id;
  }

  get complete(): boolean {
    return this.finished !== null;
  }

  start(_choice: number, usage: ReplyUsage | null = null): string {
    if (this.started) return '';
    this.started = true;
    const counts = messagesUsage(usage ?? { promptTokens: this.estimatedInput, completionTokens: 0 });
    const message = {
      id: this.envelope.id,
      type: 'message',
      role: 'assistant',
      model: this.envelope.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: counts,
    };
    return messagesEvent({ type: 'message_start', message });
  }

  reasoning(_choice: number, text: string): string {
    let out = this.start(0);
    if (this.open?.kind !== 'thinking') out += this.openBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
    if (text === '') return out;
    this.relayedDeltas += 1;
    return out + this.delta({ type: 'thinking_delta', thinking: text });
  }

  /** Ends a reasoning run: its one signature, then the block's stop; alpha's redacted thinking is a block of its own. */
  reasoningState(_choice: number, state: ReasoningState): string {
    let out = this.start(0);
    if (isRedacted(state)) return out + this.openBlock('redacted', { type: 'redacted_thinking', data: this.envelope.seal(state) }) + this.closeBlock();
    if (this.open?.kind !== 'thinking') out += this.openBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
    return out + this.delta({ type: 'signature_delta', signature: this.envelope.seal(state) }) + this.closeBlock();
  }

  text(_choice: number, text: string): string {
    return this.textDelta('text', text);
  }

  refusal(_choice: number, text: string): string {
    if (text !== '') this.refused = true;
    return this.textDelta('refusal', text);
  }

  toolCall(_choice: number, index: number, call: ReplyToolCall): string {
    const out = this.start(0) + this.openBlock('tool', { type: 'tool_use', id: call.id, name: call.name, input: {} });
    this.toolBlocks.set(index, this.blocks - 1);
    return out + this.toolArguments(0, index, call.arguments);
  }

  toolArguments(_choice: number, index: number, fragment: string): string {
    const block = this.toolBlocks.get(index);
    if (fragment === '' || block === undefined) return '';
    // Blocks run one after another: a vendor that interleaves parallel calls' fragments would
    // have them written to a block already stopped, so the stream ends with an error instead.
    if (this.open?.kind !== 'tool' || this.open.index !== block) {
      throw new GatewayError(502, 'The upstream sent arguments of a tool call after its next content block began.');
    }
    this.relayedDeltas += 1;
    return this.delta({ type: 'input_json_delta', partial_json: fragment });
  }

  finish(_choice: number, reason: FinishReason): string {
    if (this.finished !== null) return '';
    this.finished = reason;
    return this.start(0) + this.closeBlock();
  }

  /** `message_delta`: the stop reason and the cumulative usage (exact input tokens included), or the deltas relayed when the vendor gave none. */
  close(usage: ReplyUsage | null): string {
    const delta = { stop_reason: stopReason(this.finished ?? 'stop', this.toolBlocks.size > 0, this.refused), stop_sequence: null };
    this.notes?.finished(0, delta.stop_reason);
    return (
      this.start(0) +
      this.closeBlock() +
      messagesEvent({ type: 'message_delta', delta, usage: usage ? messagesUsage(usage) : { output_tokens: this.relayedDeltas } })
    );
  }

  done(): string {
    return messagesEvent({ type: 'message_stop' });
  }

  fail(error: GatewayError): string {
    return messagesEvent(messagesError(error));
  }

  private openBlock(kind: BlockKind, block: JsonObject): string {
    const out = this.closeBlock();
    this.open = { kind, index: this.blocks++ };
    return out + messagesEvent({ type: 'content_block_start', index: this.open.index, content_block: block });
  }

  private closeBlock(): string {
    if (!this.open) return '';
    const { index } = this.open;
    this.open = null;
    return messagesEvent({ type: 'content_block_stop', index });
  }

  /** A `text_delta` of a block of `kind`, opened unless it is the open one. */
  private textDelta(kind: 'text' | 'refusal', text: string): string {
    let out = this.start(0);
    if (text === '') return out;
    if (this.open?.kind !== kind) out += this.openBlock(kind, { type: 'text', text: '' });
    this.relayedDeltas += 1;
    this.notes?.text(0, text);
    return out + this.delta({ type: 'text_delta', text });
  }

  /** A delta of the open block, which is always the one opened last. */
  private delta(delta: JsonObject): string {
    return messagesEvent({ type: 'content_block_delta', index: this.blocks - 1, delta });
  }
}
