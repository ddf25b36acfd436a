import { resolve } from 'node:path';
import { loadCatalogue, type Catalogue } from '../../src/catalogue/catalogue.js';
import type { JsonObject } from '../../src/chain/call.js';
import { parseChatRequest } from '../../src/reference/chat-request.js';
import { alphaRequestBody } from '../../plugins/vendor-alpha/request.js';
import { ANTHROPIC_VERSION } from '../../plugins/vendor-alpha/translator.js';
import type { Target } from './targets.js';

/**
 * What each scenario sends to each target. The caller's body is a reference-format chat
 * request; direct and floor get what the gateway itself sends upstream for it (for alpha: the
 * gateway's own translation, computed with its translator), so the floor relays the same
 * upstream bytes the gateway does and the comparison isolates the gateway's logic.
 */

export type Family = 'gamma' | 'alpha';
export type ScenarioId = 'gamma-json' | 'gamma-stream' | 'alpha-json' | 'alpha-stream';

/** How an answer is checked: the reference format (gamma, and everything from the gateway) or alpha's own. */
export type CheckKind = 'reference-json' | 'reference-sse' | 'alpha-json' | 'alpha-sse';

export interface Scenario {
  id: ScenarioId;
  family: Family;
  stream: boolean;
  /** For the table. */
  label: string;
}

export const CLOSED_LOOP_SCENARIOS: readonly Scenario[] = [
  { id: 'gamma-json', family: 'gamma', stream: false, label: 'gamma, non-streamed' },
  { id: 'gamma-stream', family: 'gamma', stream: true, label: 'gamma, streamed (20 chunks)' },
  { id: 'alpha-json', family: 'alpha', stream: false, label: 'alpha (translated), non-streamed' },
  { id: 'alpha-stream', family: 'alpha', stream: true, label: 'alpha (translated), streamed (20 chunks)' },
];

/** Content chunks per reply (the simulators' `[[sim:tokens=N]]` directive). */
export const CONTENT_CHUNKS = 20;

const MODELS: Record<Family, string> = { gamma: 'gamma-5.4', alpha: 'alpha-sonnet-4.6' };

/** A credential the simulators do not check (they run without one); it only makes the request realistic. */
const UPSTREAM_KEY = 'bench-upstream-credential';

export interface RequestSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  check: CheckKind;
}

/** A gateway under test: where it listens and the key the bench made on it. */
export interface GatewayEndpoint {
  origin: string;
  key: string;
}

/** Where each target listens, per family (direct: the simulators; floor: its listeners; a gateway: one origin), gateways by target id. */
export interface Origins {
  direct: Record<Family, string>;
  floor: Record<Family, string>;
  gateways: Record<string, GatewayEndpoint>;
}

/** The reference-format request a caller sends. Streams ask for usage, as clients that count tokens do. */
export function referenceBody(family: Family, stream: boolean): JsonObject {
  return {
    model: MODELS[family],
    messages: [{ role: 'user', content: `Hello there, tell me something [[sim:tokens=${CONTENT_CHUNKS}]]` }],
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

let catalogue: Catalogue | null = null;

/** What the gateway sends upstream for that request. */
function upstreamBody(family: Family, stream: boolean): JsonObject {
  catalogue ??= loadCatalogue(resolve('config/models.yaml'));
  const model = catalogue.resolve(MODELS[family]);
  if (!model) throw new Error(`bench: ${MODELS[family]} is not in config/models.yaml`);
  const reference = referenceBody(family, stream);
  if (family === 'gamma') return { ...reference, model: model.upstream };
  return alphaRequestBody(parseChatRequest(reference), model, stream);
}

export function requestFor(scenario: Scenario, target: Target, origins: Origins): RequestSpec {
  const { family, stream } = scenario;
  if (target.kind === 'gateway') {
    const gateway = origins.gateways[target.id];
    if (!gateway) throw new Error(`bench: no gateway started for ${target.id}`);
    return {
      url: `${gateway.origin}/v1/chat/completions`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` },
      body: JSON.stringify(referenceBody(family, stream)),
      check: stream ? 'reference-sse' : 'reference-json',
    };
  }
  const origin = origins[target.kind][family];
  const body = JSON.stringify(upstreamBody(family, stream));
  if (family === 'gamma') {
    return {
      url: `${origin}/v1/chat/completions`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${UPSTREAM_KEY}` },
      body,
      check: stream ? 'reference-sse' : 'reference-json',
    };
  }
  return {
    url: `${origin}/v1/messages`,
    headers: {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      'anthropic-version': ANTHROPIC_VERSION,
      'x-api-key': UPSTREAM_KEY,
    },
    body,
    check: stream ? 'alpha-sse' : 'alpha-json',
  };
}
