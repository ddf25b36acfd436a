import pino from 'pino';
import { ThoughtSignatures } from '../../plugins/vendor-beta/thought-signatures.js';
import type { BetaServices } from '../../plugins/vendor-beta/translator.js';
import type { LocalAnswer, UpstreamRequest } from '../../src/chain/translator.js';
import type { GuardedFetcher } from '../../src/net/guarded-fetch.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { SIGNATURE_STATE } from '../../plugins/vendor-beta/store/state.js';
import { FakeClock } from './harness.js';
import { chatFormat } from '../../plugins/ingress-chat/format.js';
import { Call, type Endpoint } from '../../src/chain/call.js';
import type { NeutralRequest } from '../../src/neutral/request.js';
import type { ResolvedCall } from '../../src/chain/phases.js';
import { ENDPOINTS } from './endpoints.js';
import { ADMITTED_AT, detachedExchange, resolvedTo } from './translate.js';

/**
 * Vendor translator tests from a literal neutral request, whatever format would have read it (the
 * Messages format's budgets and `off`, a Responses reasoning item): a call whose format reads
 * into exactly that request and writes its reply in the reference chat format. Its wire is none
 * of the vendors', so gamma translates it too.
 */

export const NEUTRAL: NeutralRequest = {
  system: [],
  turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
  maxTokens: null,
  temperature: null,
  topP: null,
  topK: null,
  stop: [],
  n: 1,
  seed: null,
  user: null,
  presencePenalty: null,
  frequencyPenalty: null,
  logprobs: false,
  topLogprobs: null,
  tools: [],
  toolChoice: null,
  parallelToolCalls: true,
  responseFormat: null,
  reasoning: null,
};

export function neutralCall(request: Partial<NeutralRequest>, model: string, stream = false): ResolvedCall {
  const read = { ...NEUTRAL, ...request };
  const endpoint: Endpoint = { ...ENDPOINTS['chat.completions'], format: { ...chatFormat, wire: 'neutral-test', read: () => read } };
  const { req, res } = detachedExchange();
  const call = resolvedTo(new Call(endpoint, req, res, ADMITTED_AT, Buffer.from('{}')), model);
  call.stream = stream;
  return call;
}

/** What beta translators share in a test: signatures kept in a store of the test process's own (in memory). */
export function betaServices(signatures = newSignatures()): BetaServices {
  return { apiKey: 'k', embeddingModel: null, fetcher: {} as GuardedFetcher, signatures };
}

const signatureStore = await SqliteStore.open(':memory:').extend(SIGNATURE_STATE);
/** Beta's signature keeping on the test process's store (each an instance of the gateway). */
export const newSignatures = (): ThoughtSignatures => new ThoughtSignatures(signatureStore, new FakeClock(), pino({ level: 'silent' }));

/** The JSON a translator sends upstream (a request answered locally has none: an error). */
export async function upstreamJson(request: UpstreamRequest | LocalAnswer | Promise<UpstreamRequest | LocalAnswer>): Promise<Record<string, unknown>> {
  const made = await request;
  if (!('body' in made)) throw new Error('answered locally, without the upstream');
  return JSON.parse(made.body.toString()) as Record<string, unknown>;
}
