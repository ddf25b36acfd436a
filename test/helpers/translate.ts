import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import { ServerResponse, type IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';
import { Call } from '../../src/chain/call.js';
import { isResolved, type ResolvedCall } from '../../src/chain/phases.js';
import { ENDPOINTS } from './endpoints.js';
import type { Translator } from '../../src/chain/translator.js';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';
import { TEST_SEAL } from './reasoning-seal.js';

/** Translator unit tests: a Call as the pipeline would hand it over, and a stream run from a literal SSE string. */

export const catalogue = loadCatalogue('config/models.yaml');

/** 2026-01-01T00:00:00Z: every `created` in the fixtures. */
export const ADMITTED_AT = 1767225600_000;

export interface CallOptions {
  model: string;
  endpoint?: keyof typeof ENDPOINTS;
  stream?: boolean;
  includeUsage?: boolean;
}

/** A request/response pair no socket stands behind: headers may be set on it (e.g. `x-gateway-adjusted`), nothing is sent. */
export function detachedExchange(): { req: IncomingMessage; res: ServerResponse } {
  const req = { headers: {}, method: 'POST', complete: true } as unknown as IncomingMessage;
  return { req, res: new ServerResponse(req) };
}

/** `call` with `model` resolved as model-normalise would: what translators are handed. */
export function resolvedTo(call: Call, model: string | ModelEntry): ResolvedCall {
  const entry = typeof model === 'string' ? catalogue.resolve(model) : model;
  if (!entry) throw new Error(`no catalogue model ${String(model)}`);
  call.resolveModel(entry);
  call.reasoningSeal = TEST_SEAL;
  if (!isResolved(call)) throw new Error('unreachable: the model was just resolved');
  return call;
}

export function makeCall(body: unknown, options: CallOptions): ResolvedCall {
  const { req, res } = detachedExchange();
  const call = resolvedTo(new Call(ENDPOINTS[options.endpoint ?? 'chat.completions'], req, res, ADMITTED_AT, Buffer.from(JSON.stringify(body))), options.model);
  call.stream = options.stream ?? false;
  call.includeUsage = options.includeUsage ?? false;
  return call;
}

/** Feeds a literal upstream SSE body to the translator's stream; returns the reference SSE it wrote (without [DONE]). */
export function runStream(translator: Translator, sse: string): string {
  const stream = translator.stream();
  let out = '';
  const parser = createParser({ onEvent: (event) => (out += stream.event({ event: event.event, data: event.data })) });
  parser.feed(sse);
  return out + stream.end();
}

/** Ids are random: fixtures say `chatcmpl-ID`, `cmpl-ID`, `call_ID`. */
export const fixedIds = (text: string): string =>
  text
    .replace(/chatcmpl-[A-Za-z0-9]{24}/g, 'chatcmpl-ID')
    .replace(/\bcmpl-[A-Za-z0-9]{24}/g, 'cmpl-ID')
    .replace(/call_[A-Za-z0-9]{24}/g, 'call_ID');

/** The SSE frames of a literal fixture, one JSON per `data:` line, for exact comparison. */
export const frames = (sse: string): unknown[] =>
  sse
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as unknown);

/** What a function threw (for matching a GatewayError's fields), or undefined. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
