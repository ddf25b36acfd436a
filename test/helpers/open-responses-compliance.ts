import { readFileSync } from 'node:fs';
import { eventProblems, schemaProblems, type SchemaName } from './open-responses.js';
import { WebSocket } from 'ws';

/**
 * Runs the Open Responses specification's compliance tests (the definitions vendored in
 * test/fixtures/open-responses-compliance, see its README) against a base URL, the way the
 * specification's own runner does: the same requests, the same transport (HTTP, SSE or
 * WebSocket), the same status check, the response held to the same schema (here the vendored
 * JSON schemas, through ./open-responses.ts), the same checks after it, and for the WebSocket
 * scenarios the same turns on the same connections. A test passes when it yields no error.
 */

type Json = Record<string, unknown>;

/** The specification runner's checks, by the names the definitions use (`name:argument`). */
type Validator = (response: Json, context: Context) => string[];

interface Context {
  streaming: boolean;
  /** The stream's events (SSE events, or WebSocket messages), when streamed. */
  events?: Json[];
  /** What parsing and validating the stream's events found. */
  streamErrors?: string[];
}

export interface ComplianceTest {
  id: string;
  name: string;
  description: string;
  transport?: 'http' | 'websocket';
  endpoint?: string;
  streaming?: boolean;
  expectedStatuses?: number[];
  /** The schema of the answer; ResponseResource when absent, none when null (only the status is checked). */
  responseSchema?: 'CompactResource' | null;
  request: Json;
  /** A response validated as if answered (a check of the schemas themselves): nothing is sent. */
  mockResponse?: Json;
  validators?: string[];
  /** The WebSocket scenario the test runs instead of one request. */
  run?: Scenario;
  /** A scenario's requests, in order. */
  steps?: Json[];
  /** The compact request of `compact-new-chain`. */
  compact?: Json;
}

type Scenario =
  | 'sequential-responses'
  | 'continuation'
  | 'reconnect-store-false-recovery'
  | 'previous-response-not-found'
  | 'failed-continuation-evicts-cache'
  | 'compact-new-chain';

export interface ComplianceConfig {
  /** e.g. http://127.0.0.1:8080/v1 */
  baseUrl: string;
  apiKey: string;
  model: string;
}

export interface ComplianceResult {
  status: 'passed' | 'failed';
  errors: string[];
}

const FIXTURE = new URL('../fixtures/open-responses-compliance/tests.json', import.meta.url);

/** Every compliance test of the vendored suite, in its order. */
export const complianceTests: readonly ComplianceTest[] = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { tests: ComplianceTest[] }).tests;

/** How long one WebSocket turn may wait for its terminal event (the suite's own bound). */
const TURN_TIMEOUT_MS = 30_000;

const errorCodeOf = (value: unknown): string | null => {
  const error = (value as { error?: unknown } | null)?.error;
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : null;
};

const validators: Record<string, (argument: string) => Validator> = {
  hasOutput: () => (response) => (Array.isArray(response['output']) && response['output'].length > 0 ? [] : ['Response has no output items']),
  hasOutputType: (type) => (response) =>
    (response['output'] as Json[]).some((item) => item['type'] === type) ? [] : [`Expected output item of type "${type}" but none found`],
  hasAssistantMessagePhase: (phase) => (response) =>
    (response['output'] as Json[]).some((item) => item['type'] === 'message' && item['role'] === 'assistant' && item['phase'] === phase)
      ? []
      : [`Expected assistant output message with phase "${phase}" but none found`],
  completedStatus: () => (response) => {
    if (!('status' in response)) return ['Expected a standard response object with a "status" field'];
    return response['status'] === 'completed' ? [] : [`Expected status "completed" but got "${String(response['status'])}"`];
  },
  compactObject: () => (response) =>
    response['object'] === 'response.compaction' ? [] : [`Expected object "response.compaction" but got "${String(response['object'])}"`],
  streamingEvents: () => (_, context) => {
    if (!context.streaming) return [];
    return context.events && context.events.length > 0 ? [] : ['No streaming events received'];
  },
  streamingSchema: () => (_, context) => (context.streaming ? (context.streamErrors ?? []) : []),
};

/** The test's checks: the named schema first, then (only if it holds) each validator in order. */
function checked(test: ComplianceTest, value: unknown, context: Context, schema: SchemaName | null = 'ResponseResource'): string[] {
  if (schema === null) return [];
  const problems = schemaProblems(schema, value);
  if (problems.length > 0) return problems;
  return (test.validators ?? []).flatMap((spec) => {
    const [name = '', argument = ''] = spec.split(':');
    const make = validators[name];
    if (!make) throw new Error(`unknown compliance check '${spec}'`);
    return make(argument)(value as Json, context);
  });
}

/** A definition's body with its placeholders filled: the model, the time, the first turn's id, the compacted items. */
function filled(template: unknown, values: { model: string; first?: string | undefined; compacted?: unknown[] }): unknown {
  if (typeof template === 'string') {
    if (template === '{{first.id}}') {
      if (!values.first) throw new Error('First WebSocket turn did not return a response id');
      return values.first;
    }
    return template.replaceAll('{{model}}', values.model).replaceAll('{{now}}', String(Date.now()));
  }
  if (Array.isArray(template)) return template.flatMap((item) => (item === '{{compacted}}' ? (values.compacted ?? []) : [filled(item, values)]));
  if (template && typeof template === 'object') return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, filled(value, values)]));
  return template;
}

/**
 * The suite's SSE reading: `event:` and `data:` lines (trimmed; the last data line of a frame
 * wins), an event at each blank line that follows data, `[DONE]` skipped, each event held to the
 * specification's union, the last terminal event's response kept. Read from the whole body: the
 * suite reads chunk by chunk and forgets a frame split across two reads (see the fixture's README).
 */
function readStream(text: string): { events: Json[]; errors: string[]; finalResponse: Json | null } {
  const events: Json[] = [];
  const errors: string[] = [];
  let finalResponse: Json | null = null;
  let name = '';
  let data = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data = line.slice(5).trim();
    else if (line === '' && data) {
      if (data !== '[DONE]') {
        try {
          const event = JSON.parse(data) as Json;
          events.push(event);
          const problems = eventProblems(event);
          if (problems.length > 0) errors.push(`Event validation failed for ${name || String(event['type'])}: ${JSON.stringify(problems)}`);
          finalResponse = terminalResponse(event) ?? finalResponse;
        } catch {
          errors.push(`Failed to parse event data: ${data}`);
        }
      }
      name = '';
      data = '';
    }
  }
  return { events, errors, finalResponse };
}

function terminalResponse(event: Json): Json | null {
  const terminal = ['response.completed', 'response.failed', 'response.incomplete'].includes(String(event['type']));
  return terminal ? ((event['response'] as Json | undefined) ?? null) : null;
}

async function post(config: ComplianceConfig, endpoint: string, body: unknown): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(`${config.baseUrl.replace(/\/$/, '')}${endpoint}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${config.apiKey}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('application/json');
  return { status: res.status, body: json ? (JSON.parse(text) as unknown) : text, text };
}

async function runHttp(test: ComplianceTest, config: ComplianceConfig): Promise<string[]> {
  const streaming = test.streaming ?? false;
  const request = filled(test.request, config) as Json;
  const res = await post(config, test.endpoint ?? '/responses', streaming ? { ...request, stream: true } : request);
  const stream = streaming ? readStream(res.text) : null;
  if (!(test.expectedStatuses ?? [200]).includes(res.status)) return [`HTTP ${res.status}: ${res.text}`];
  const context: Context = stream ? { streaming, events: stream.events, streamErrors: stream.errors } : { streaming };
  return checked(test, stream ? stream.finalResponse : res.body, context, test.responseSchema === undefined ? 'ResponseResource' : test.responseSchema);
}

/** One `response.create` and what came back for it on the connection. */
interface Turn {
  request?: Json;
  events: Json[];
  errors: string[];
  finalResponse: Json | null;
  errorCode: string | null;
  errorEvent?: Json;
}

type Step = Json | ((turns: readonly Turn[]) => Json);

const messageText = (data: Buffer | ArrayBuffer | Buffer[]): string =>
  Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');

/**
 * One connection, one `response.create` per step, each sent once the previous turn ended (a
 * terminal event, an error event or an error code, or `[DONE]`): the suite's session. Each
 * request is first held to `WebSocketResponseCreateEvent` unless told not to.
 */
function session(config: ComplianceConfig, steps: readonly Step[], validateRequests = true): Promise<Turn[]> {
  const url = new URL(`${config.baseUrl.replace(/\/$/, '')}/responses`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return new Promise((resolve, reject) => {
    const turns: Turn[] = steps.map(() => ({ events: [], errors: [], finalResponse: null, errorCode: null }));
    let index = 0;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    // The specification's runner uses Bun's WebSocket, which takes upgrade headers; Node 20 has no WebSocket client, `ws` is one that takes them.
    const socket = new WebSocket(url.toString(), {
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${config.apiKey}` },
    });
    const end = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        socket.close();
      } catch {
        // Closing a socket that never opened throws; the session is over either way.
      }
      if (error) reject(error);
      else resolve(turns);
    };
    const sendNext = (): void => {
      const step = steps[index];
      const turn = turns[index];
      if (!step || !turn) return end();
      let body: Json;
      try {
        body = typeof step === 'function' ? step(turns.slice(0, index)) : step;
      } catch (error) {
        return end(error as Error);
      }
      const problems = validateRequests ? schemaProblems('WebSocketResponseCreateEvent', body) : [];
      if (problems.length > 0) return end(new Error(problems.map((problem) => `Request ${index + 1}: WebSocket request ${problem}`).join('\n')));
      turn.request = body;
      clearTimeout(timer);
      timer = setTimeout(() => {
        turn.errors.push('Timed out waiting for terminal WebSocket response event');
        end();
      }, TURN_TIMEOUT_MS);
      socket.send(JSON.stringify(body));
    };
    const nextTurn = (): void => {
      clearTimeout(timer);
      index += 1;
      sendNext();
    };
    socket.on('open', sendNext);
    socket.on('message', (data) => {
      const turn = turns[index];
      if (!turn || settled) return;
      const text = messageText(data);
      if (text === '[DONE]') {
        if (!turn.finalResponse && !turn.errorCode) turn.errors.push('Received [DONE] before a terminal WebSocket event');
        return nextTurn();
      }
      let event: Json;
      try {
        event = JSON.parse(text) as Json;
      } catch {
        turn.errors.push(`Failed to parse WebSocket event data: ${text}`);
        return;
      }
      turn.events.push(event);
      const problems = eventProblems(event, 'websocket');
      if (problems.length > 0) turn.errors.push(`Event validation failed for ${String(event['type'])}: ${JSON.stringify(problems)}`);
      const final = terminalResponse(event);
      if (final) {
        turn.finalResponse = final;
        return nextTurn();
      }
      const code = errorCodeOf(event);
      if (event['type'] === 'error' || code) {
        turn.errorCode = code;
        turn.errorEvent = event;
        if (!code) turn.errors.push(`WebSocket error event: ${text}`);
        nextTurn();
      }
    });
    socket.on('error', (error) => end(new Error(`WebSocket connection failed (${error.message})`)));
    socket.on('close', () => {
      const turn = turns[index];
      if (!settled && turn && !turn.finalResponse && !turn.errorCode) turn.errors.push('WebSocket closed before a terminal response event');
      end();
    });
  });
}

/** A turn's answer held to the test's checks, as a streamed response; its stream's errors come first when the answer fails its schema. */
function turnErrors(test: ComplianceTest, turn: Turn): string[] {
  const problems = schemaProblems('ResponseResource', turn.finalResponse);
  if (problems.length > 0) return [...turn.errors, ...problems];
  return checked(test, turn.finalResponse, { streaming: true, events: turn.events, streamErrors: turn.errors });
}

/** The suite's check that a first turn answered a valid response with an id. */
function firstTurnErrors(turn: Turn): string[] {
  const problems = schemaProblems('ResponseResource', turn.finalResponse);
  if (problems.length > 0) return [...turn.errors, ...problems];
  return turn.finalResponse?.['id'] ? turn.errors : [...turn.errors, 'Warmup response did not include an id'];
}

const turnErrorCode = (turn: Turn | undefined): string | null => turn?.errorCode ?? errorCodeOf(turn?.finalResponse);

/** The later steps of a scenario, each filled once the turns before it are known: `{{first.id}}` is the id given, or the connection's first answer. */
const laterSteps = (test: ComplianceTest, config: ComplianceConfig, first?: string): Step[] =>
  (test.steps ?? []).map(
    (step) => (turns: readonly Turn[]) => filled(step, { ...config, first: first ?? (turns[0]?.finalResponse?.['id'] as string | undefined) }) as Json,
  );

const scenarios: Record<Scenario, (test: ComplianceTest, config: ComplianceConfig) => Promise<string[]>> = {
  'sequential-responses': async (test, config) => {
    const turns = await session(config, laterSteps(test, config));
    return turns.flatMap((turn, i) => turnErrors(test, turn).map((error) => `Turn ${i + 1}: ${error}`));
  },
  continuation: async (test, config) => {
    const [first, second] = await session(config, [filled(test.request, config) as Json, ...laterSteps(test, config)]);
    const errors = first ? firstTurnErrors(first) : ['First WebSocket turn did not run'];
    if (errors.length > 0) return errors;
    return second ? turnErrors(test, second) : ['Second WebSocket continuation turn did not run'];
  },
  'reconnect-store-false-recovery': async (test, config) => {
    const [first] = await session(config, [filled(test.request, config) as Json]);
    const firstErrors = first ? firstTurnErrors(first) : ['First WebSocket turn did not run'];
    if (firstErrors.length > 0) return firstErrors;
    const [reconnect, recovery] = await session(config, laterSteps(test, config, first?.finalResponse?.['id'] as string));
    const errors = [...(reconnect?.errors ?? [])];
    const code = turnErrorCode(reconnect);
    if (code !== 'previous_response_not_found')
      errors.push(`Expected previous_response_not_found after reconnecting a store:false chain but got ${code ?? 'no error code'}`);
    if (!recovery) errors.push('Recovery WebSocket turn did not run after reconnect miss');
    else {
      errors.push(...turnErrors(test, recovery));
      if (recovery.request && 'previous_response_id' in recovery.request)
        errors.push('Reconnect recovery must start a new response without previous_response_id');
    }
    return errors;
  },
  'previous-response-not-found': async (test, config) => {
    const [turn] = await session(config, [filled(test.request, config) as Json]);
    const errors = [...(turn?.errors ?? [])];
    const code = turnErrorCode(turn);
    if (code !== 'previous_response_not_found') errors.unshift(`Expected previous_response_not_found but got ${code ?? 'no error code'}`);
    return errors;
  },
  'failed-continuation-evicts-cache': async (test, config) => {
    const [first, failed, retry] = await session(config, [filled(test.request, config) as Json, ...laterSteps(test, config)]);
    const errors = first ? firstTurnErrors(first) : ['First WebSocket turn did not run'];
    if (!failed) errors.push('Failed WebSocket continuation turn did not run');
    else if (!(failed.errorEvent || turnErrorCode(failed) || failed.finalResponse?.['status'] === 'failed')) {
      errors.push(...failed.errors);
      errors.push(`Expected second WebSocket continuation turn to fail but got status ${String(failed.finalResponse?.['status'] ?? 'no terminal response')}`);
    }
    if (!retry) errors.push('Retry WebSocket continuation turn did not run');
    else {
      errors.push(...retry.errors);
      const code = turnErrorCode(retry);
      if (code !== 'previous_response_not_found')
        errors.push(`Expected previous_response_not_found after failed continuation eviction but got ${code ?? 'no error code'}`);
    }
    return errors;
  },
  'compact-new-chain': async (test, config) => {
    const compacted = await post(config, '/responses/compact', filled(test.compact, config));
    if (compacted.status < 200 || compacted.status > 299) return [`HTTP ${compacted.status} from /responses/compact: ${JSON.stringify(compacted.body)}`];
    const output = (compacted.body as Json | null)?.['output'];
    if (!Array.isArray(output)) return ['Compaction response did not include an output array'];
    // The compacted items are the server's own and go back as they are: the suite does not hold this request to the schema.
    const [turn] = await session(
      config,
      (test.steps ?? []).map((step) => filled(step, { ...config, compacted: output }) as Json),
      false,
    );
    return turn ? turnErrors(test, turn) : ['WebSocket turn did not run'];
  },
};

/** Runs one compliance test against `config.baseUrl`; an exception is the test's failure, as in the suite. */
export async function runComplianceTest(test: ComplianceTest, config: ComplianceConfig): Promise<ComplianceResult> {
  let errors: string[];
  try {
    if (test.mockResponse) errors = checked(test, filled(test.mockResponse, config), { streaming: false });
    else if (test.run) errors = await scenarios[test.run](test, config);
    else if (test.transport === 'websocket') {
      const [turn] = await session(config, [filled(test.request, config) as Json]);
      errors = turn ? turnErrors(test, turn) : ['WebSocket turn did not run'];
    } else errors = await runHttp(test, config);
  } catch (error) {
    errors = [error instanceof Error ? error.message : String(error)];
  }
  return { status: errors.length === 0 ? 'passed' : 'failed', errors };
}
