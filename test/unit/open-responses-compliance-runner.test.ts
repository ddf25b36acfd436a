import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import t, { type Test } from 'tap';
import { complianceTests, runComplianceTest, type ComplianceTest } from '../helpers/open-responses-compliance.js';

/**
 * The compliance runner against a loopback server of literal answers: a server that follows the
 * specification (HTTP, SSE, WebSocket mode with connection-local continuation, compaction) passes
 * every test, WebSocket scenarios included; one that breaks a rule fails the test that checks it,
 * with the suite's message. The gateway serves no WebSocket mode yet, so this is what shows the
 * runner's WebSocket scenarios can pass at all.
 */

type Json = Record<string, unknown>;

/** How the fake breaks the specification, if it does. */
type Fault = 'none' | 'no-completed-at' | 'unknown-event' | 'done-after-terminal' | 'forgets-responses';

interface ServerSocket {
  on(event: 'message', listener: (data: Buffer) => void): this;
  send(data: string): void;
}
interface WebSocketServer {
  on(event: 'connection', listener: (socket: ServerSocket) => void): this;
  close(): void;
}
const { WebSocketServer } = createRequire(import.meta.url)('ws') as {
  WebSocketServer: new (options: { server: ReturnType<typeof createServer> }) => WebSocketServer;
};

const phaseTest = complianceTests.find((test) => test.id === 'response-output-phase-schema') as ComplianceTest;
let ids = 0;

/** A complete response object (the suite's own fixture, with the `user` the JSON schema requires). */
function response(fault: Fault, body: Json, status: 'in_progress' | 'completed' = 'completed'): Json {
  const answer: Json = {
    ...phaseTest.mockResponse,
    id: `resp_${++ids}`,
    model: body['model'],
    user: null,
    status,
    completed_at: status === 'completed' ? 1764967972 : null,
    previous_response_id: body['previous_response_id'] ?? null,
    output: Array.isArray(body['tools'])
      ? [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{}', status: 'completed' }]
      : [{ id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [] }] }],
  };
  if (fault === 'no-completed-at') delete answer['completed_at'];
  return answer;
}

/** The events of one streamed answer: created, (an extension event,) completed. */
function events(fault: Fault, body: Json): Json[] {
  const done = response(fault, body);
  const created = { ...done, status: 'in_progress', completed_at: null, output: [] };
  const extra = fault === 'unknown-event' ? [{ type: 'acme.thinking' }] : [];
  return [{ type: 'response.created', response: created }, ...extra, { type: 'response.completed', response: done }].map((event, i) => ({
    ...event,
    sequence_number: i,
  }));
}

async function fake(t: Test, fault: Fault = 'none'): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as Json;
      const json = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      };
      if (req.url === '/v1/responses/compact') {
        if (!body['model']) return json(400, { error: { message: 'model is required', code: 'missing_required_parameter' } });
        return json(200, {
          id: 'cmp_resp_1',
          object: 'response.compaction',
          created_at: 1764967971,
          output: [{ type: 'compaction', id: 'cmp_1', encrypted_content: 'sealed' }],
          usage: phaseTest.mockResponse?.['usage'],
        });
      }
      if (!body['stream']) return json(200, response(fault, body));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of events(fault, body)) res.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket) => {
    // Connection-local state: the ids this connection may continue from.
    const known = new Set<string>();
    socket.on('message', (data) => {
      const body = JSON.parse(data.toString('utf8')) as Json;
      const previous = body['previous_response_id'] as string | undefined;
      const error = (code: string): void =>
        socket.send(JSON.stringify({ type: 'error', status: 400, error: { code, message: `${code}: ${String(previous)}`, param: 'previous_response_id' } }));
      if (previous && !known.has(previous)) return error('previous_response_not_found');
      const input = Array.isArray(body['input']) ? (body['input'] as Json[]) : [];
      if (input.some((item) => item['type'] === 'function_call_output')) {
        if (previous) known.delete(previous);
        return error('invalid_request_error');
      }
      const answer = events(fault, body);
      for (const event of answer) socket.send(JSON.stringify(event));
      if (fault !== 'forgets-responses') known.add(String((answer.at(-1)?.['response'] as Json)['id']));
      if (fault === 'done-after-terminal') socket.send('[DONE]');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    sockets.close();
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const run = async (baseUrl: string, id: string) =>
  runComplianceTest(complianceTests.find((test) => test.id === id) as ComplianceTest, { baseUrl, apiKey: 'k', model: 'm' });

t.test('a server that follows the specification passes every test, WebSocket and compaction included', async (t) => {
  const baseUrl = await fake(t);
  for (const test of complianceTests) {
    const result = await runComplianceTest(test, { baseUrl, apiKey: 'k', model: 'm' });
    // The suite's own fixture omits `user`, which the JSON schema requires (see the fixture's README).
    if (test.id === 'response-output-phase-schema') t.match(result.errors, [/required property 'user'/], test.id);
    else t.same(result, { status: 'passed', errors: [] }, test.id);
  }
});

t.test('a response without completed_at fails its schema', async (t) => {
  const baseUrl = await fake(t, 'no-completed-at');
  t.match(await run(baseUrl, 'basic-response'), { status: 'failed', errors: [/completed_at/] });
  t.match(await run(baseUrl, 'streaming-response'), { status: 'failed', errors: [/completed_at/] });
});

t.test('an event outside the specification fails the stream, over SSE and over WebSocket', async (t) => {
  const baseUrl = await fake(t, 'unknown-event');
  t.match(await run(baseUrl, 'streaming-response'), { status: 'failed', errors: [/^Event validation failed for acme.thinking/] });
  t.match(await run(baseUrl, 'websocket-response'), { status: 'failed', errors: [/^Event validation failed for acme.thinking/] });
});

t.test('[DONE] after a terminal event ends the next turn on the same connection', async (t) => {
  const baseUrl = await fake(t, 'done-after-terminal');
  t.same(await run(baseUrl, 'websocket-response'), { status: 'passed', errors: [] }, 'harmless on a single turn');
  const sequential = await run(baseUrl, 'websocket-sequential-responses');
  t.equal(sequential.status, 'failed');
  t.match(sequential.errors[0], /^Turn 2: Received \[DONE\] before a terminal WebSocket event/);
});

t.test('a connection that forgets its responses fails continuation', async (t) => {
  const baseUrl = await fake(t, 'forgets-responses');
  t.equal((await run(baseUrl, 'websocket-continuation')).status, 'failed');
  t.equal((await run(baseUrl, 'websocket-failed-continuation-evicts-cache')).status, 'passed', 'eviction alone cannot tell');
});

t.test('a path the server does not have, and a WebSocket upgrade it refuses', async (t) => {
  const server = createServer((_req, res) => res.writeHead(404).end('no'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  t.same(await run(baseUrl, 'basic-response'), { status: 'failed', errors: ['HTTP 404: no'] });
  t.same(await run(baseUrl, 'websocket-response'), { status: 'failed', errors: ['WebSocket connection failed (Unexpected server response: 404)'] });
});
