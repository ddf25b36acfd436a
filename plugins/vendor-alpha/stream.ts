import { GatewayError, type JsonObject, type Usage } from '../../src/plugin-api.js';
import { parseUpstreamJson } from '../../src/toolkit/json.js';
import type { ReasoningState, ReplyStream, ReplyUsage } from '../../src/toolkit/neutral.js';
import type { SseEvent } from '../../src/toolkit/sse.js';
import type { StreamTranslator } from '../../src/toolkit/vendor.js';
import { alphaStreamError } from './errors.js';
import { JSON_TOOL } from './structured.js';
import { alphaFinish, alphaRefusal, alphaStreamUsage, alphaUsage, thinkingState } from './response.js';

/**
 * Alpha's named SSE events → the caller's stream, through the ingress format's sink (docs/vendor-formats.md#alpha-stream-events). Alpha numbers
 * all content blocks; tool calls get their own running index. In JSON mode the forced tool's
 * argument fragments are the answer's text, and as in the whole reply the model's own text is
 * dropped when that tool answers: it is held until the message stops, and written only if the
 * tool never came (the model called one of the caller's tools instead). A thinking block's
 * deltas are reasoning, its one `signature_delta` (right before the block stops) the state that
 * ends the run; a redacted block comes whole at its start. A refusal (`stop_reason: "refusal"`)
 * is written as the reply's refusal before it finishes.
 */

type Block = { kind: 'text' | 'json' | 'thinking' | 'ignored' } | { kind: 'tool'; index: number };

export class AlphaStream implements StreamTranslator {
  private readonly blocks = new Map<number, Block>();
  private toolCalls = 0;
  private vendorUsage: ReplyUsage | null = null;
  private sawOutputCount = false;
  private stopped = false;
  /** JSON mode: the text held until the message stops, and whether the JSON tool answered. */
  private held = '';
  private answeredJson = false;

  constructor(
    private readonly writer: ReplyStream,
    private readonly jsonMode: boolean,
    /** The gateway's alpha key, scrubbed from relayed error messages. */
    private readonly credential: string | undefined,
  ) {}

  get relayedDeltas(): number {
    return this.writer.relayedDeltas;
  }

  /** The vendor's counts; until `message_delta` its output count is provisional, so the relayed deltas stand in. */
  get usage(): Usage | null {
    return alphaStreamUsage(this.vendorUsage, this.sawOutputCount, this.writer.relayedDeltas);
  }

  event(event: SseEvent): string {
    const data = parseUpstreamJson(event.data, 'alpha', 'a stream event');
    switch (data['type'] ?? event.event) {
      case 'message_start':
        this.vendorUsage = alphaUsage((data['message'] as JsonObject | undefined)?.['usage']);
        return this.writer.start(0);
      case 'content_block_start':
        return this.startBlock(Number(data['index']), (data['content_block'] ?? {}) as JsonObject);
      case 'content_block_delta':
        return this.delta(this.blocks.get(Number(data['index'])), (data['delta'] ?? {}) as JsonObject);
      case 'message_delta': {
        this.vendorUsage = alphaUsage(data['usage'], this.vendorUsage ?? undefined);
        this.sawOutputCount = true;
        const delta = (data['delta'] ?? {}) as JsonObject;
        const stopReason = delta['stop_reason'];
        if (!stopReason) return '';
        const refusal = alphaRefusal(stopReason, delta['stop_details']);
        return this.heldText() + (refusal ? this.writer.refusal(0, refusal) : '') + this.writer.finish(0, alphaFinish(stopReason, this.toolCalls > 0));
      }
      case 'message_stop':
        this.stopped = true;
        return '';
      case 'error':
        throw alphaStreamError(data, this.credential);
      default:
        // ping, content_block_stop, and event types newer than this translator.
        return '';
    }
  }

  done(): string {
    return this.writer.done();
  }

  fail(error: GatewayError): string {
    return this.writer.fail(error);
  }

  end(): string {
    if (!this.stopped) throw new GatewayError(502, 'The alpha upstream ended the stream before message_stop.');
    return this.heldText() + this.writer.finish(0, 'stop') + this.writer.close(this.vendorUsage);
  }

  /** JSON mode's held text, once (none once the JSON tool answered). */
  private heldText(): string {
    const text = this.held;
    this.held = '';
    return text === '' ? '' : this.writer.text(0, text);
  }

  /** The model's text: written, or in JSON mode held (see the class comment). */
  private text(text: string): string {
    if (!this.jsonMode) return this.writer.text(0, text);
    if (!this.answeredJson) this.held += text;
    return '';
  }

  private startBlock(index: number, block: JsonObject): string {
    if (block['type'] === 'text') {
      this.blocks.set(index, { kind: 'text' });
      return typeof block['text'] === 'string' ? this.text(block['text']) : '';
    }
    if (block['type'] === 'thinking') {
      this.blocks.set(index, { kind: 'thinking' });
      return typeof block['thinking'] === 'string' ? this.writer.reasoning(0, block['thinking']) : '';
    }
    if (block['type'] === 'redacted_thinking') {
      this.blocks.set(index, { kind: 'ignored' });
      return this.writer.reasoningState(0, thinkingState(block) as ReasoningState);
    }
    if (block['type'] !== 'tool_use') {
      this.blocks.set(index, { kind: 'ignored' });
      return '';
    }
    if (this.jsonMode && block['name'] === JSON_TOOL) {
      this.blocks.set(index, { kind: 'json' });
      this.answeredJson = true;
      this.held = '';
      return this.writer.start(0);
    }
    const call = { index: this.toolCalls++, id: String(block['id']), name: String(block['name']) };
    this.blocks.set(index, { kind: 'tool', index: call.index });
    return this.writer.toolCall(0, call.index, { id: call.id, name: call.name, arguments: '' });
  }

  private delta(block: Block | undefined, delta: JsonObject): string {
    if (!block) return '';
    if (delta['type'] === 'text_delta' && block.kind === 'text') return this.text(String(delta['text'] ?? ''));
    if (block.kind === 'thinking') {
      if (delta['type'] === 'thinking_delta') return this.writer.reasoning(0, String(delta['thinking'] ?? ''));
      const state = delta['type'] === 'signature_delta' ? thinkingState({ signature: delta['signature'] }) : null;
      return state ? this.writer.reasoningState(0, state) : '';
    }
    if (delta['type'] !== 'input_json_delta') return '';
    const fragment = String(delta['partial_json'] ?? '');
    if (block.kind === 'json') return this.writer.text(0, fragment);
    if (block.kind === 'tool') return this.writer.toolArguments(0, block.index, fragment);
    return '';
  }
}
