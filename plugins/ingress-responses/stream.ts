import { GatewayError, type Call, type JsonObject } from '../../src/plugin-api.js';
import type { FinishReason, ReasoningState, ReplyStream, ReplyToolCall, ReplyUsage, SealState } from '../../src/toolkit/neutral.js';
import { usageOrEstimate } from '../../src/toolkit/token-estimate.js';
import { EventWriter, placeOf, type ItemPlace } from './events.js';
import {
  contentPart,
  contentPartJson,
  endingOf,
  functionCallItem,
  messageItem,
  reasoningItem,
  responsesUsage,
  type ItemStatus,
  type PartType,
} from './response.js';
import type { ResponsesTurn } from './turn.js';

/**
 * Writes the Responses stream events of one reply from the neutral events a vendor's stream
 * translator reports: `response.created` and `response.in_progress` first; then per output item
 * `response.output_item.added`, its deltas and `.done` events, and `response.output_item.done`
 * with the whole item (an item is closed when the next one begins or the reply finishes); a
 * message's text and refusal are content parts of it, each opened and closed likewise; after
 * completion exactly one terminal event carrying the whole response; on a failure after the 200,
 * the open item closed as `incomplete`, then one `error` event and `response.failed` (each event
 * written by events.ts). A Responses reply has one choice: the choice index is not read.
 */

/** A message's content part being written. */
interface OpenPart {
  type: PartType;
  text: string;
  /** The item's head and `"content_index":…`: the first members of every event about the part. */
  head: string;
}

type OpenItem = ItemPlace &
  (
    | { kind: 'message'; parts: JsonObject[]; part: OpenPart | null }
    | { kind: 'function_call'; toolIndex: number; call: ReplyToolCall }
    | { kind: 'reasoning'; text: string; summary: boolean; state: ReasoningState | null }
  );
type MessageItem = Extract<OpenItem, { kind: 'message' }>;

export class ResponsesStream implements ReplyStream {
  /** Output deltas written so far (text, refusal and argument fragments): the fallback count when a stream is cut short. */
  relayedDeltas = 0;
  private readonly events = new EventWriter();
  private started = false;
  private finished: FinishReason | null = null;
  private open: OpenItem | null = null;
  /** Items closed so far, in output order. */
  private readonly output: JsonObject[] = [];
  private calls = 0;
  /** Tool-call indexes left out (parallel_tool_calls: false). */
  private readonly dropped = new Set<number>();
  /** The final response as JSON text, once the reply is complete. */
  private final: string | null = null;
  /** The last reasoning item done without a state: a state that comes after its output began is its own. */
  private unsigned: { position: number; id: string; text: string } | null = null;

  constructor(
    private readonly turn: ResponsesTurn,
    private readonly parallelToolCalls: boolean,
    /** The gateway's input estimate of the call, asked only when the vendor gave no usage. */
    private readonly estimatePrompt: () => number,
    /** How the call seals the reasoning states it hands out. */
    private readonly seal: SealState,
    /** Where the id, finish reason and text are noted, when a plugin asked (`call.noteAnswer`). */
    private readonly notes: Call['answerNotes'] = null,
  ) {
    if (notes) notes.id = turn.id;
  }

  get complete(): boolean {
    return this.finished !== null;
  }

  start(): string {
    if (this.started) return '';
    this.started = true;
    // Both events carry the same response object: serialised once.
    const response = `"response":${this.turn.response({ status: 'in_progress', error: null, incomplete_details: null, output: [], usage: null })}`;
    return this.events.raw('response.created', response) + this.events.raw('response.in_progress', response);
  }

  reasoning(_choice: number, text: string): string {
    let out = this.start();
    if (text === '') return out;
    this.relayedDeltas += 1;
    out += this.begin('reasoning');
    const item = this.open as Extract<OpenItem, { kind: 'reasoning' }>;
    if (!item.summary) {
      item.summary = true;
      out += this.events.item('response.reasoning_summary_part.added', item, { summary_index: 0, part: { type: 'summary_text', text: '' } });
    }
    item.text += text;
    return out + this.events.item('response.reasoning_summary_text.delta', item, { summary_index: 0, delta: text });
  }

  /**
   * The state ends the current reasoning run (one without text is a redacted run). A state that
   * comes after the run's output began (beta signs its first call or its last part) is that
   * run's: its item's done event has gone, so the response (the terminal event, the stored
   * output) carries it, as a whole reply's reasoning item before the message would.
   */
  reasoningState(_choice: number, state: ReasoningState): string {
    const late = this.open?.kind === 'reasoning' ? null : this.unsigned;
    if (late) {
      this.unsigned = null;
      this.output[late.position] = reasoningItem(late.id, late.text, this.seal(state), this.output[late.position]?.['status'] as ItemStatus);
      return this.start();
    }
    const out = this.start() + this.begin('reasoning');
    (this.open as Extract<OpenItem, { kind: 'reasoning' }>).state = state;
    return out + this.closeItem('completed');
  }

  text(_choice: number, text: string): string {
    return this.fragment('output_text', text);
  }

  /** The model's refusal: a `refusal` part of the message, after its text part. */
  refusal(_choice: number, text: string): string {
    return this.fragment('refusal', text);
  }

  toolCall(_choice: number, index: number, call: ReplyToolCall): string {
    let out = this.start();
    // With parallel_tool_calls: false, the first call only (beta cannot be asked for fewer).
    if (!this.parallelToolCalls && this.calls > 0) {
      this.dropped.add(index);
      return out;
    }
    this.calls += 1;
    out += this.closeItem('completed');
    const item: OpenItem = { kind: 'function_call', ...placeOf('fc_', this.turn.id, this.output.length), toolIndex: index, call: { ...call, arguments: '' } };
    this.open = item;
    out += this.events.event('response.output_item.added', {
      output_index: item.index,
      item: functionCallItem(item.id, item.call, 'in_progress', this.turn.tools().namespaced),
    });
    return out + this.toolArguments(0, index, call.arguments);
  }

  toolArguments(_choice: number, index: number, fragment: string): string {
    if (fragment === '' || this.dropped.has(index)) return '';
    const item = this.open;
    if (item?.kind !== 'function_call' || item.toolIndex !== index) {
      throw new GatewayError(502, 'The upstream sent arguments of a tool call after its next output item began.');
    }
    this.relayedDeltas += 1;
    item.call.arguments += fragment;
    return this.events.item('response.function_call_arguments.delta', item, { delta: fragment });
  }

  finish(_choice: number, reason: FinishReason): string {
    if (this.finished) return '';
    const out = this.start();
    this.finished = reason;
    this.notes?.finished(0, reason);
    return out + this.closeItem(endingOf(reason).status);
  }

  /** Nothing more to write before completion; the final response is settled (and staged for storage). */
  close(usage: ReplyUsage | null): string {
    const ending = endingOf(this.finished ?? 'stop');
    const shown = usageOrEstimate(usage, this.estimatePrompt, this.relayedDeltas);
    // Written out, not spread (docs/performance.md#node-and-v8).
    this.final = this.turn.conclude({
      status: ending.status,
      incomplete_details: ending.incomplete_details,
      error: null,
      output: this.output,
      usage: responsesUsage(shown),
    });
    return '';
  }

  /** The terminal event, after completion (the ledger row and the stored response are committed). */
  done(): string {
    const ending = endingOf(this.finished ?? 'stop');
    return this.events.raw(ending.status === 'completed' ? 'response.completed' : 'response.incomplete', `"response":${this.final as string}`);
  }

  /** The open item ends `incomplete` (its closing events first, so every item added is done), then the error and `response.failed` with every item. */
  fail(error: GatewayError): string {
    const head = this.start() + this.closeItem('incomplete');
    const response = this.turn.response({
      status: 'failed',
      error: { code: error.code, message: error.message },
      incomplete_details: null,
      output: this.output,
      usage: null,
    });
    return head + this.events.error(error) + this.events.raw('response.failed', `"response":${response}`);
  }

  /**
   * A fragment of a message's text or refusal, its event written without building its object:
   * a text delta is the most frequent event of a stream.
   */
  private fragment(type: PartType, text: string): string {
    let out = this.start();
    if (text === '') return out;
    this.relayedDeltas += 1;
    this.notes?.text(0, text);
    out += this.beginPart(type);
    const part = (this.open as MessageItem).part as OpenPart;
    part.text += text;
    const delta = JSON.stringify(text);
    if (type === 'output_text') return out + this.events.raw('response.output_text.delta', `${part.head},"delta":${delta},"logprobs":[]`);
    return out + this.events.raw('response.refusal.delta', `${part.head},"delta":${delta}`);
  }

  /** Makes sure an item of `kind` is open (closing another one first): its opening events. */
  private begin(kind: 'message' | 'reasoning'): string {
    if (this.open?.kind === kind) return '';
    const out = this.closeItem('completed');
    const index = this.output.length;
    // The added item written as text (its id needs no escaping): JSON.stringify of a small object costs about 0.4 µs in Node 20.
    if (kind === 'reasoning') {
      const item: OpenItem = { kind, ...placeOf('rs_', this.turn.id, index), text: '', summary: false, state: null };
      this.open = item;
      return (
        out +
        this.events.raw(
          'response.output_item.added',
          `"output_index":${index},"item":{"id":"${item.id}","type":"reasoning","status":"in_progress","summary":[]}`,
        )
      );
    }
    const item: OpenItem = { kind, ...placeOf('msg_', this.turn.id, index), parts: [], part: null };
    this.open = item;
    return (
      out +
      this.events.raw(
        'response.output_item.added',
        `"output_index":${index},"item":{"id":"${item.id}","type":"message","role":"assistant","status":"in_progress","content":[]}`,
      )
    );
  }

  /** Makes sure a part of `type` is open in an open message (closing another part, or another item, first): its opening events. */
  private beginPart(type: PartType): string {
    let out = this.begin('message');
    const item = this.open as MessageItem;
    if (item.part?.type === type) return out;
    out += this.closePart(item);
    const part: OpenPart = { type, text: '', head: `${item.head},"content_index":${item.parts.length}` };
    item.part = part;
    return out + this.events.raw('response.content_part.added', `${part.head},"part":${contentPartJson(type, '""')}`);
  }

  /** Closes a message's open part, if any: its closing events; the whole part joins the message's content. */
  private closePart(item: MessageItem): string {
    const part = item.part;
    if (!part) return '';
    item.part = null;
    const whole = contentPart(part.type, part.text);
    item.parts.push(whole);
    const text = JSON.stringify(part.text);
    const done =
      part.type === 'output_text'
        ? this.events.raw('response.output_text.done', `${part.head},"text":${text},"logprobs":[]`)
        : this.events.raw('response.refusal.done', `${part.head},"refusal":${text}`);
    return done + this.events.raw('response.content_part.done', `${part.head},"part":${contentPartJson(part.type, text)}`);
  }

  /** Closes the open item, if any: its closing events and `response.output_item.done` with the whole item. */
  private closeItem(status: ItemStatus): string {
    const item = this.open;
    if (!item) return '';
    this.open = null;
    let out = '';
    let done: JsonObject;
    if (item.kind === 'message') {
      out += this.closePart(item);
      done = messageItem(item.id, item.parts, status);
    } else if (item.kind === 'function_call') {
      done = functionCallItem(item.id, item.call, status, this.turn.tools().namespaced);
      out += this.events.item('response.function_call_arguments.done', item, { name: done['name'], arguments: item.call.arguments });
    } else {
      if (item.summary) {
        out += this.events.item('response.reasoning_summary_text.done', item, { summary_index: 0, text: item.text });
        out += this.events.item('response.reasoning_summary_part.done', item, { summary_index: 0, part: { type: 'summary_text', text: item.text } });
      }
      done = reasoningItem(item.id, item.text, item.state ? this.seal(item.state) : null, status);
      this.unsigned = item.state ? null : { position: this.output.length, id: item.id, text: item.text };
    }
    this.output.push(done);
    return out + this.events.raw('response.output_item.done', `"output_index":${item.index},"item":${JSON.stringify(done)}`);
  }
}
