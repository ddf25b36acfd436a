import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError, invalidRequest, type JsonObject, type ModelEntry, type Operation, type Usage, type ResolvedCall } from '../../src/plugin-api.js';
import type { ErrorFormat } from '../../src/toolkit/ingress.js';
import { isObject, parseUpstreamJson } from '../../src/toolkit/json.js';
import { withMembers } from '../../src/toolkit/json-text.js';
import { ledgerUsage, stateSealer, type ReplyUsage, type SealState, type TranslatedBody } from '../../src/toolkit/neutral.js';
import type { SseEvent } from '../../src/toolkit/sse.js';
import type { StreamTranslator, Translator, UpstreamRequest } from '../../src/toolkit/vendor.js';
import { betasNeededBy, type BetaFilter } from './betas.js';
import { alphaError, alphaStreamError } from './errors.js';
import { upstreamBody } from './exact-edits.js';
import { joinedMessages, ThinkingForAlpha } from './foreign-thinking.js';
import { alphaStreamUsage, alphaUsage } from './response.js';
import { alphaHeaders } from './translator.js';

/**
 * Alpha for callers of its own wire format (the Messages ingress): the caller's body goes up with
 * only `model` changed to the upstream name (and thinking blocks sealed by the gateway as alpha
 * takes them: foreign-thinking.ts), and the answer comes back with only `model` changed
 * to the canonical ID (message ids stay alpha's `msg_…`) and its reasoning states sealed; every
 * other byte stays as it came (exact-edits.ts). Usage is read for the ledger; errors are written in the caller's format.
 * `anthropic-beta` values pass by the operator's list.
 */

type Notes = NonNullable<ResolvedCall['answerNotes']>;

/** A relayed message noted as its caller got it (`call.noteAnswer`): its id, `stop_reason` as sent, and its text blocks when the notes keep text. */
function noteMessage(notes: Notes, message: JsonObject): void {
  if (typeof message['id'] === 'string') notes.id = message['id'];
  if (typeof message['stop_reason'] === 'string') notes.finished(0, message['stop_reason']);
  const content = message['content'];
  if (!Array.isArray(content)) return;
  for (const block of content as unknown[]) if (isObject(block) && block['type'] === 'text' && typeof block['text'] === 'string') notes.text(0, block['text']);
}

const PATHS: Partial<Record<Operation, string>> = { generate: 'v1/messages', count_tokens: 'v1/messages/count_tokens' };
const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0 };

export interface PassthroughServices {
  apiKey: string | undefined;
  betas: BetaFilter;
}

export class AlphaPassthrough implements Translator {
  private readonly model: ModelEntry;

  constructor(
    private readonly call: ResolvedCall,
    private readonly services: PassthroughServices,
  ) {
    this.model = call.model;
  }

  request(): UpstreamRequest {
    const { call, model } = this;
    const path = call.endpoint.operation === null ? undefined : PATHS[call.endpoint.operation];
    if (path === undefined) throw invalidRequest(`${call.endpoint.path} is not offered for the model '${model.id}'.`, 'model');
    const raw = call.rawJson as Buffer;
    const thinking = new ThinkingForAlpha(call);
    const messages = thinking.messages(call.body['messages']);
    // Nothing to change: the caller's buffer itself, neither scanned nor copied. Two bodies are
    // written from their parsed value: one where a member to change stands twice (exact-edits.ts
    // says why), and one where a message is left out and its neighbours joined (a rare rewrite).
    const unchanged = call.body['model'] === model.upstream && !messages;
    const leftOut = messages?.includes(null) === true;
    const body = unchanged
      ? raw
      : ((leftOut ? null : upstreamBody(raw, call.body, model.upstream, messages, (block) => thinking.block(block))) ??
        Buffer.from(JSON.stringify({ ...call.body, model: model.upstream, ...(messages ? { messages: joinedMessages(messages) } : {}) })));
    const headers = alphaHeaders(call.stream, this.services.apiKey);
    const betas = this.services.betas.forwarded(call.callerHeaders['anthropic-beta'], betasNeededBy(call.body));
    if (betas !== undefined) headers['anthropic-beta'] = betas;
    return { path, headers, body };
  }

  response(raw: Buffer): TranslatedBody {
    const body = parseUpstreamJson(raw.toString('utf8'), 'alpha', 'a response');
    if (this.call.endpoint.operation === 'count_tokens') {
      if (typeof body['input_tokens'] !== 'number') throw new GatewayError(502, 'The alpha upstream sent a token count without input_tokens.');
      return { body: raw, usage: NO_USAGE };
    }
    if (body['type'] !== 'message') throw new GatewayError(502, 'The alpha upstream sent a response that is not a message.');
    const usage = ledgerUsage(alphaUsage(body['usage']));
    const notes = this.call.answerNotes;
    if (notes) noteMessage(notes, body);
    const content = sealedContent(body['content'], stateSealer(this.call));
    if (content) return { body: JSON.stringify({ ...body, model: this.model.id, content }), usage };
    if (body['model'] === this.model.id) return { body: raw, usage };
    return { body: withMembers(raw, [], { model: this.model.id }) ?? JSON.stringify({ ...body, model: this.model.id }), usage };
  }

  stream(): StreamTranslator {
    const { call } = this;
    return new AlphaPassthroughStream(this.model.id, this.services.apiKey, call.endpoint.format.errors, stateSealer(call), call.answerNotes);
  }

  error(status: number, headers: IncomingHttpHeaders, body: Buffer): GatewayError {
    return alphaError(status, headers, body, this.services.apiKey);
  }
}

const frame = (name: string, data: string): string => `event: ${name}\ndata: ${data}\n\n`;

const SIGNATURE_DELTA = /"type"\s*:\s*"signature_delta"/;
const REDACTED_BLOCK = /"type"\s*:\s*"redacted_thinking"/;

/**
 * A content block as the caller gets it: alpha's thinking `signature`, or a redacted block's
 * `data`, sealed by the gateway (docs/deployments.md#affinity-and-sealed-reasoning-state); null
 * for any other block, or a thinking block still without its signature (a stream's start).
 */
function sealedBlock(block: unknown, seal: SealState): JsonObject | null {
  if (!isObject(block)) return null;
  if (block['type'] === 'thinking' && typeof block['signature'] === 'string' && block['signature'] !== '') {
    return { ...block, signature: seal({ family: 'alpha', kind: 'signature', data: block['signature'] }) };
  }
  if (block['type'] === 'redacted_thinking' && typeof block['data'] === 'string') {
    return { ...block, data: seal({ family: 'alpha', kind: 'redacted', data: block['data'] }) };
  }
  return null;
}

/** A message's content with its reasoning states sealed, or null when it holds none (the body then goes as it came). */
function sealedContent(content: unknown, seal: SealState): unknown[] | null {
  if (!Array.isArray(content)) return null;
  const out = content.map((block: unknown) => sealedBlock(block, seal) ?? block);
  return out.some((block, i) => block !== content[i]) ? out : null;
}

/**
 * The upstream's events relayed as they came, except `message_start` (its model becomes the
 * canonical ID) and `message_stop`, checked to be JSON and held back until the ledger row is
 * committed (`done`). An `error` event ends the stream with our error in the caller's format; a
 * stream without `message_stop` is a 502, never a silently truncated success.
 */
export class AlphaPassthroughStream implements StreamTranslator {
  relayedDeltas = 0;
  private vendorUsage: ReplyUsage | undefined;
  private sawOutputCount = false;
  /** The upstream's `message_stop` frame, held for `done()`; '' until it came. */
  private stop = '';

  constructor(
    private readonly canonical: string,
    /** The gateway's alpha key, scrubbed from relayed error messages. */
    private readonly credential: string | undefined,
    private readonly errors: ErrorFormat,
    /** Seals the reasoning states the caller gets. */
    private readonly seal: SealState,
    /** Where the id, stop reason (and text) are noted, when a plugin asked (`call.noteAnswer`). */
    private readonly notes: ResolvedCall['answerNotes'] = null,
  ) {}

  /** The vendor's counts; until `message_delta` its output count is provisional, so the relayed deltas stand in. */
  get usage(): Usage | null {
    return alphaStreamUsage(this.vendorUsage, this.sawOutputCount, this.relayedDeltas);
  }

  event(event: SseEvent): string {
    // Alpha names every event; the data's own type stands in should a frame come without its name.
    const name = event.event ?? String(parseUpstreamJson(event.data, 'alpha', 'a stream event')['type']);
    switch (name) {
      case 'message_start': {
        const data = parseUpstreamJson(event.data, 'alpha', 'a stream event');
        const message = (data['message'] ?? {}) as JsonObject;
        this.vendorUsage = alphaUsage(message['usage']);
        if (this.notes) noteMessage(this.notes, message);
        if (message['model'] === this.canonical) return frame(name, event.data);
        const renamed = withMembers(Buffer.from(event.data), ['message'], { model: this.canonical });
        return frame(name, renamed ? renamed.toString('utf8') : JSON.stringify({ ...data, message: { ...message, model: this.canonical } }));
      }
      case 'message_delta': {
        const data = parseUpstreamJson(event.data, 'alpha', 'a stream event');
        this.vendorUsage = alphaUsage(data['usage'], this.vendorUsage);
        this.sawOutputCount = true;
        if (this.notes && isObject(data['delta'])) noteMessage(this.notes, data['delta']);
        return frame(name, event.data);
      }
      case 'message_stop':
        // Read once a stream: the frame the gateway writes last must be one the caller can parse.
        parseUpstreamJson(event.data, 'alpha', 'a stream event');
        this.stop = frame(name, event.data);
        return '';
      case 'error':
        throw alphaStreamError(parseUpstreamJson(event.data, 'alpha', 'a stream event'), this.credential);
      case 'content_block_delta': {
        // A signature closes a thinking block: it is no output of its own (the translated stream
        // does not count it either). Quotes inside a JSON string are escaped, so text cannot match.
        if (!SIGNATURE_DELTA.test(event.data)) {
          this.relayedDeltas += 1;
          if (this.notes?.texts) this.noteText(event.data);
          return frame(name, event.data);
        }
        const data = parseUpstreamJson(event.data, 'alpha', 'a stream event');
        const delta = (data['delta'] ?? {}) as JsonObject;
        const signature =
          typeof delta['signature'] === 'string' ? this.seal({ family: 'alpha', kind: 'signature', data: delta['signature'] }) : delta['signature'];
        return frame(name, JSON.stringify({ ...data, delta: { ...delta, signature } }));
      }
      case 'content_block_start': {
        if (!REDACTED_BLOCK.test(event.data)) return frame(name, event.data);
        const data = parseUpstreamJson(event.data, 'alpha', 'a stream event');
        const block = sealedBlock(data['content_block'], this.seal);
        return frame(name, block ? JSON.stringify({ ...data, content_block: block }) : event.data);
      }
      default:
        // Content blocks, pings, and event types newer than this gateway.
        return frame(name, event.data);
    }
  }

  /** A text delta's text, read only when the notes keep text (the relay itself never parses a delta). */
  private noteText(data: string): void {
    const delta = parseUpstreamJson(data, 'alpha', 'a stream event')['delta'];
    if (isObject(delta) && delta['type'] === 'text_delta' && typeof delta['text'] === 'string') this.notes?.text(0, delta['text']);
  }

  end(): string {
    if (this.stop === '') throw new GatewayError(502, 'The alpha upstream ended the stream before message_stop.');
    return '';
  }

  done(): string {
    return this.stop;
  }

  fail(error: GatewayError): string {
    return this.errors.frame(error);
  }
}
