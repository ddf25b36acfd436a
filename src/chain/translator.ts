import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../http/errors.js';
import type { Usage } from './call.js';
import type { ResolvedCall } from './phases.js';

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
  /** The body for the caller, in the format it called. */
  body: Buffer | string;
  usage: Usage | null;
}

/**
 * Stateful translation of one upstream stream into the caller's format (through the ingress
 * format's sink, or passed through when both speak the same wire format). Every method returns
 * the SSE text to send ('' for nothing).
 */
export interface StreamTranslator {
  event(event: SseEvent): string;
  /** The upstream body ended normally: the closing frames (finish, usage) — before completion. */
  end(): string;
  /** The last frame, written after the completion hooks (the ledger row is committed before it): chat's `data: [DONE]`. */
  done(): string;
  /** The frames that end the caller's stream when it broke after its 200. */
  fail(error: GatewayError): string;
  /** Usage as reported by the vendor so far, or null. */
  readonly usage: Usage | null;
  /** Output deltas relayed to the caller so far, the fallback count when a stream is cut short. */
  readonly relayedDeltas: number;
}

/**
 * An answer a translator gives itself, without any upstream (gamma's token-count estimate): the
 * pipeline relays it with no upstream attempt, so it has no ledger row.
 */
export interface LocalAnswer {
  readonly local: TranslatedBody;
}

/**
 * One call's translation between the caller's format and a vendor's wire format: from the
 * neutral request (`call.request`) to the vendor's, and from the vendor's answer through the
 * ingress format's output (`call.endpoint.format.output(call)`). Vendor knowledge lives only
 * behind this interface.
 */
export interface Translator {
  /**
   * The vendor request, or an answer given without one. May be asynchronous (e.g. fetching
   * remote images a vendor cannot take by URL).
   */
  request(): UpstreamRequest | LocalAnswer | Promise<UpstreamRequest | LocalAnswer>;
  /** A 2xx non-streamed upstream body → the caller's body. Throws a GatewayError for garbage. */
  response(body: Buffer): TranslatedBody;
  stream(): StreamTranslator;
  /** A non-2xx upstream answer → our envelope (message kept, Retry-After passed through). */
  error(status: number, headers: IncomingHttpHeaders, body: Buffer): GatewayError;
}

export interface TranslatorProvider {
  readonly family: string;
  /** One call's translator; the call's model is resolved (the core creates none before). */
  create(call: ResolvedCall): Translator;
}
