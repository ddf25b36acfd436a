import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { loadCatalogue, type Catalogue } from '../../src/catalogue/catalogue.js';
import type { JsonObject } from '../../src/chain/call.js';
import { parseChatRequest } from '../../plugins/ingress-chat/read.js';
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
export type ScenarioId =
  | 'gamma-json'
  | 'gamma-stream'
  | 'alpha-json'
  | 'alpha-stream'
  | 'responses-json'
  | 'responses-stream'
  | 'responses-unstored-json'
  | 'responses-unstored-stream';

/** How an answer is checked: the reference format (gamma, and the gateway's chat answers), alpha's own, or the Responses API's. */
export type CheckKind =
  'reference-json' | 'reference-sse' | 'alpha-json' | 'alpha-sse' | 'responses-json' | 'responses-sse' | 'reference-401' | 'reference-tool-sse';

/** The format the caller speaks to a gateway (direct and floor always get the vendor's). */
export type Ingress = 'chat' | 'responses';

export interface Scenario {
  id: ScenarioId;
  family: Family;
  stream: boolean;
  ingress: Ingress;
  /** A Responses request's `store: false` (the API's default, true, when absent). */
  unstored?: true;
  /** For the table. */
  label: string;
}

export const CLOSED_LOOP_SCENARIOS: readonly Scenario[] = [
  { id: 'gamma-json', family: 'gamma', stream: false, ingress: 'chat', label: 'gamma, non-streamed' },
  { id: 'gamma-stream', family: 'gamma', stream: true, ingress: 'chat', label: 'gamma, streamed (20 chunks)' },
  { id: 'alpha-json', family: 'alpha', stream: false, ingress: 'chat', label: 'alpha (translated), non-streamed' },
  { id: 'alpha-stream', family: 'alpha', stream: true, ingress: 'chat', label: 'alpha (translated), streamed (20 chunks)' },
  // The Responses API on gamma: the gateway maps it to the chat request the floor relays as is.
  // By default each response is also stored (a row committed with the call's ledger row);
  // with `store: false`, as Codex CLI sends, the gateway does what chat does plus the mapping.
  { id: 'responses-json', family: 'gamma', stream: false, ingress: 'responses', label: 'Responses API on gamma, non-streamed' },
  { id: 'responses-stream', family: 'gamma', stream: true, ingress: 'responses', label: 'Responses API on gamma, streamed (20 chunks)' },
  { id: 'responses-unstored-json', family: 'gamma', stream: false, ingress: 'responses', unstored: true, label: 'Responses, store: false, non-streamed' },
  {
    id: 'responses-unstored-stream',
    family: 'gamma',
    stream: true,
    ingress: 'responses',
    unstored: true,
    label: 'Responses, store: false, streamed (20 chunks)',
  },
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
  /** The status a right answer has (absent: 200); any other counts as a failure. */
  status?: number;
  /** Each request sent with a new unknown key (unknownKey()) as its bearer token: the invalid-key flood. */
  freshKey?: true;
}

/** An unknown key of the gateway's own form: `sl-` and 32 random letters and digits. */
export const unknownKey = (): string =>
  `sl-${randomBytes(24)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .padEnd(32, 'x')
    .slice(0, 32)}`;

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

/** The caller's prompt of every scenario but those of bench/agent-path.ts, which pad or steer it. */
export const DEFAULT_PROMPT = `Hello there, tell me something [[sim:tokens=${CONTENT_CHUNKS}]]`;

/**
 * The tool of the tool-call stream (bench/scenarios/streamed-turns.ts), and the arguments the
 * simulators give its call: its schema's `const` values, streamed in two argument deltas.
 */
export const TOOL_CALL = {
  name: 'lookup',
  arguments: '{"query":"the weather in Paris on the 3rd","units":"metric","days":3}',
  tools: [
    {
      type: 'function',
      function: {
        name: 'lookup',
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string', const: 'the weather in Paris on the 3rd' },
            units: { type: 'string', const: 'metric' },
            days: { type: 'integer', const: 3 },
          },
        },
      },
    },
  ],
};

/** The reference-format request a caller sends. Streams ask for usage, as clients that count tokens do. `tools`: TOOL_CALL's (the model answers with its call). */
export function referenceBody(family: Family, stream: boolean, prompt = DEFAULT_PROMPT, tools = false): JsonObject {
  return {
    model: MODELS[family],
    messages: [{ role: 'user', content: prompt }],
    ...(tools ? { tools: TOOL_CALL.tools } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

let catalogue: Catalogue | null = null;

/** What the gateway sends upstream for that request. */
function upstreamBody(family: Family, stream: boolean, prompt: string, tools: boolean): JsonObject {
  catalogue ??= loadCatalogue(resolve('config/models.yaml'));
  const model = catalogue.resolve(MODELS[family]);
  if (!model) throw new Error(`bench: ${MODELS[family]} is not in config/models.yaml`);
  const reference = referenceBody(family, stream, prompt, tools);
  if (family === 'gamma') return { ...reference, model: model.upstream };
  return alphaRequestBody(parseChatRequest(reference), model, stream);
}

/** The same ask in the Responses API: one input string. */
function responsesBody(family: Family, stream: boolean, unstored: boolean, prompt: string): JsonObject {
  return {
    model: MODELS[family],
    input: prompt,
    ...(stream ? { stream: true } : {}),
    ...(unstored ? { store: false } : {}),
  };
}

function gatewayRequest(scenario: Scenario, gateway: GatewayEndpoint, prompt: string, tools: boolean): RequestSpec {
  const { family, stream } = scenario;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` };
  if (scenario.ingress === 'responses') {
    return {
      url: `${gateway.origin}/v1/responses`,
      headers,
      body: JSON.stringify(responsesBody(family, stream, scenario.unstored === true, prompt)),
      check: stream ? 'responses-sse' : 'responses-json',
    };
  }
  return {
    url: `${gateway.origin}/v1/chat/completions`,
    headers,
    body: JSON.stringify(referenceBody(family, stream, prompt, tools)),
    check: referenceCheck(stream, tools),
  };
}

const referenceCheck = (stream: boolean, tools: boolean): CheckKind => (tools ? 'reference-tool-sse' : stream ? 'reference-sse' : 'reference-json');

/**
 * What `scenario` sends `target`; `prompt`: the caller's text (the scenarios of bench/agent-path.ts
 * pad or steer it); `tools`: with TOOL_CALL's tool, answered with its call (chat on gamma, streamed).
 */
export function requestFor(scenario: Scenario, target: Target, origins: Origins, prompt = DEFAULT_PROMPT, tools = false): RequestSpec {
  if (tools && (scenario.family !== 'gamma' || scenario.ingress !== 'chat' || !scenario.stream))
    throw new Error('bench: tool-call streams are streamed chat on gamma');
  const { family, stream } = scenario;
  if (target.kind === 'gateway') {
    const gateway = origins.gateways[target.id];
    if (!gateway) throw new Error(`bench: no gateway started for ${target.id}`);
    return gatewayRequest(scenario, gateway, prompt, tools);
  }
  const origin = origins[target.kind][family];
  const body = JSON.stringify(upstreamBody(family, stream, prompt, tools));
  if (family === 'gamma') {
    return {
      url: `${origin}/v1/chat/completions`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${UPSTREAM_KEY}` },
      body,
      check: referenceCheck(stream, tools),
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
