import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../http/errors.js';
import type { Call, Usage } from './call.js';

/** What a translator asks the proxy core to send. Vendor auth goes in `headers`. */
export interface UpstreamRequest {
  /** Path (and query) under the family's base URL, without a leading slash: `v1/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** One parsed upstream SSE event. */
export interface SseEvent {
  event?: string | undefined;
  data: string;
}

export interface TranslatedBody {
  /** The reference-format body for the caller. */
  body: Buffer | string;
  usage: Usage | null;
}

/**
 * Stateful translation of one upstream stream into reference-format SSE. Every method returns
 * the SSE text to send ('' for nothing); the proxy core adds `data: [DONE]` itself, after the
 * completion hooks (so the ledger row is committed before the last byte).
 */
export interface StreamTranslator {
  event(event: SseEvent): string;
  /** The upstream body ended normally: the closing frames (finish, usage chunk if asked). */
  end(): string;
  /** Usage as reported by the vendor so far, or null. */
  readonly usage: Usage | null;
  /** Output deltas relayed to the caller so far, the fallback count when a stream is cut short. */
  readonly relayedDeltas: number;
}

/**
 * One call's translation between the reference format and a vendor's wire format. Vendor
 * knowledge lives only behind this interface.
 */
export interface Translator {
  /** The vendor request. May be asynchronous (e.g. fetching remote images a vendor cannot take by URL). */
  request(): UpstreamRequest | Promise<UpstreamRequest>;
  /** A 2xx non-streamed upstream body → the caller's body. Throws a GatewayError for garbage. */
  response(body: Buffer): TranslatedBody;
  stream(): StreamTranslator;
  /** A non-2xx upstream answer → our envelope (message kept, Retry-After passed through). */
  error(status: number, headers: IncomingHttpHeaders, body: Buffer): GatewayError;
}

export interface TranslatorProvider {
  readonly family: string;
  create(call: Call): Translator;
}
