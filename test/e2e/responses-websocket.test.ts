import type OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import t from 'tap';
import { connect, isOpen, openResponsesSocket, type Json } from '../helpers/responses-socket.js';
import { startHarness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/**
 * WebSocket mode of /v1/responses with a plain `ws` client: an agent loop on one connection for
 * a model of each family, continuation from the connection's last response (with store: false
 * too), previous_response_not_found, the upgrade's refusals, the gatekeepers on each message,
 * ledger rows and metrics per message.
 */

const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }];

const last = (messages: Json[]): Json => messages.at(-1) as Json;

for (const model of ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4']) {
  t.test(`an agent loop on one connection: ${model}`, async (t) => {
    const h = await startHarness(t);
    const { id, key } = await h.createKey();
    const socket = await connect(h.origin, key);
    let previous: string | null = null;
    let input: Json[] = [{ role: 'user', content: 'Look it up [[sim:tokens=3]]' }];
    for (let turn = 0; turn < 3; turn += 1) {
      const messages = await socket.turn({
        type: 'response.create',
        model,
        input,
        tools,
        store: false,
        ...(previous ? { previous_response_id: previous } : {}),
      });
      t.same(
        messages.map((message) => message['sequence_number']),
        messages.map((_, index) => index),
        'each event is one message, numbered as on SSE',
      );
      t.equal(messages[0]?.['type'], 'response.created');
      const done = last(messages);
      t.equal(done['type'], 'response.completed', `turn ${turn} completed`);
      const response = done['response'] as Json;
      t.equal(response['store'], false);
      t.equal(response['previous_response_id'], previous);
      const call = (response['output'] as Json[]).find((item) => item['type'] === 'function_call');
      previous = response['id'] as string;
      if (!call) {
        t.ok(turn > 0, 'the model answered once the tool had');
        break;
      }
      input = [{ type: 'function_call_output', call_id: call['call_id'], output: `result ${turn}` }];
    }
    socket.close();
    await socket.closed();
    const ledger = openLedgerDb(h.dbPath);
    t.teardown(() => ledger.close());
    const rows = ledger.rows(id);
    t.ok(rows.length >= 2, 'one ledger row per message');
    t.ok(
      rows.every((row) => row.endpoint === 'responses' && row.status === 200 && row.outcome === 'ok' && row.stream === 1 && row.charged_nano > 0),
      'each a streamed responses call, billed',
    );
    const upstream = model.startsWith('alpha') ? h.alpha : model.startsWith('beta') ? h.beta : h.gamma;
    const replayed = JSON.stringify(upstream.requests.at(-1)?.body);
    t.match(replayed, /Look it up/, 'the last turn reached the upstream with the whole conversation, kept by the connection');
    t.match(replayed, /result 0/);
  });
}

t.test('continuation: the connection keeps its last response; another connection, or an older one, is not found', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  const first = last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Remember the word kumquat.', store: false }));
  const firstId = first['response'].id as string;
  const second = last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'And now?', store: false, previous_response_id: firstId }));
  t.equal(second['type'], 'response.completed');
  t.match(JSON.stringify(h.gamma.requests.at(-1)?.body), /kumquat/, 'the kept conversation reached the vendor');

  const stale = last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Again', store: false, previous_response_id: firstId }));
  t.same(stale, {
    type: 'error',
    status: 400,
    error: {
      message: `Previous response with id '${firstId}' not found.`,
      type: 'invalid_request',
      code: 'previous_response_not_found',
      param: 'previous_response_id',
    },
  });

  const other = await connect(h.origin, key);
  const secondId = second['response'].id as string;
  const elsewhere = last(await other.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi', store: false, previous_response_id: secondId }));
  t.match(elsewhere, { type: 'error', status: 400, error: { code: 'previous_response_not_found' } }, 'store: false lives on its connection only');

  const stored = last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Stored one.' }));
  const fromStore = last(await other.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Go on', previous_response_id: stored['response'].id }));
  t.equal(fromStore['type'], 'response.completed', 'a stored response continues on any connection of its key');
  socket.close();
  other.close();
});

t.test('a failed continuation forgets the kept response', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  const first = last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi', store: false }));
  const id = first['response'].id as string;
  const failed = last(
    await socket.turn({
      type: 'response.create',
      model: 'gamma-5.4',
      store: false,
      previous_response_id: id,
      input: [{ type: 'function_call_output', call_id: 'call_unknown', output: 'x' }],
    }),
  );
  t.match(failed, { type: 'error', status: 400 });
  const after = last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi', store: false, previous_response_id: id }));
  t.match(after, { type: 'error', status: 400, error: { code: 'previous_response_not_found' } });
  socket.close();
});

t.test('the upgrade: no key or a bad one is a plain 401 in our envelope, and no socket', async (t) => {
  const h = await startHarness(t);
  const none = await openResponsesSocket(h.origin, null);
  t.notOk(isOpen(none));
  if (isOpen(none)) return;
  t.equal(none.status, 401);
  t.same(none.body, { error: { message: 'No API key: send Authorization: Bearer sl-….', type: 'invalid_api_key', code: 'invalid_api_key', param: null } });
  const bad = await openResponsesSocket(h.origin, `sl-${'x'.repeat(32)}`);
  t.match(bad, { status: 401, body: { error: { message: 'Invalid API key.', code: 'invalid_api_key' } } });
  t.equal(h.gamma.requests.length + h.alpha.requests.length + h.beta.requests.length, 0);
  const refusals = h.logs.map((line) => JSON.parse(line) as Json).filter((line) => line['msg'] === 'request' && line['path'] === '/v1/responses');
  t.same(
    refusals.map((line) => [line['method'], line['status']]),
    [
      ['GET', 401],
      ['GET', 401],
    ],
    'each refused upgrade has its request log line',
  );
  const { id, key } = await h.createKey();
  const socket = await connect(h.origin, key);
  socket.close();
  await socket.closed();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const lines = h.logs.map((line) => JSON.parse(line) as Json);
  t.ok(
    lines.some((line) => line['msg'] === 'websocket opened' && line['key_id'] === id),
    'an open connection is logged with its key id',
  );
  t.ok(
    lines.some((line) => line['msg'] === 'websocket closed' && line['key_id'] === id),
    'and its close',
  );
  t.notOk(
    h.logs.some((line) => line.includes(key)),
    'never the key',
  );
});

t.test('the key is checked again at each message: revoked meanwhile, the next message is refused', async (t) => {
  const h = await startHarness(t);
  const { id, key } = await h.createKey();
  const socket = await connect(h.origin, key);
  t.equal(last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi' }))['type'], 'response.completed');
  t.equal((await h.admin('POST', `/keys/${id}/revoke`)).status, 200);
  // The one-second key memory (docs/scale-out.md) may still know it as active.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  t.match(last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi' })), {
    type: 'error',
    status: 401,
    error: { code: 'invalid_api_key', message: /revoked/ },
  });
  socket.close();
});

t.test('the gatekeepers on each message: allowlist 403, rate cap 429, ceiling 402', async (t) => {
  const h = await startHarness(t);
  const { key: gammaOnly } = await h.createKey({ models: ['gamma-5.4'] });
  const scoped = await connect(h.origin, gammaOnly);
  t.match(last(await scoped.turn({ type: 'response.create', model: 'alpha-sonnet-4.6', input: 'Hi' })), {
    type: 'error',
    status: 403,
    error: { type: 'model_not_allowed', code: 'model_not_allowed', param: 'model' },
  });
  t.equal(last(await scoped.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi' }))['type'], 'response.completed', 'the connection stays open');
  scoped.close();

  const { key: slow } = await h.createKey({ rpm_limit: 1 });
  const limited = await connect(h.origin, slow);
  t.equal(last(await limited.turn({ type: 'response.create', model: 'beta-3-flash', input: 'Hi' }))['type'], 'response.completed');
  t.match(last(await limited.turn({ type: 'response.create', model: 'beta-3-flash', input: 'Hi' })), {
    type: 'error',
    status: 429,
    error: { type: 'rate_limited', code: 'rate_limit_exceeded' },
  });
  limited.close();

  const { key: capped } = await h.createKey({ monthly_ceiling_usd: '0.00001' });
  const poor = await connect(h.origin, capped);
  t.match(last(await poor.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi' })), {
    type: 'error',
    status: 402,
    error: { type: 'quota_exceeded', code: 'monthly_cap_exceeded' },
  });
  poor.close();
});

t.test('messages the protocol refuses: not JSON, another type, stream or background', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  const next = (): Promise<Json> => new Promise((resolve) => socket.ws.once('message', (data) => resolve(JSON.parse(data.toString()) as Json)));
  let reply = next();
  socket.ws.send('{not json');
  t.match(await reply, { type: 'error', status: 400, error: { code: 'invalid_json' } });
  reply = next();
  socket.ws.send('[1, 2]');
  t.match(await reply, { type: 'error', status: 400, error: { message: /JSON object/ } });
  reply = next();
  socket.ws.send(JSON.stringify({ type: 'response.append', input: [] }));
  t.match(await reply, { type: 'error', status: 400, error: { param: 'type' } });
  for (const member of ['stream', 'background', 'stream_options']) {
    t.match(last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi', [member]: true })), {
      type: 'error',
      status: 400,
      error: { param: member },
    });
  }
  t.match(
    last(await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi', temperature: 'hot' })),
    {
      type: 'error',
      status: 400,
      error: { param: 'temperature' },
    },
    "the body's own checks, in the format's notation",
  );
  socket.close();
});

t.test('a client that leaves mid-answer: the call ends as a caller gone, billed for what was produced', async (t) => {
  const h = await startHarness(t);
  const { id, key } = await h.createKey();
  const socket = await connect(h.origin, key);
  socket.ws.send(JSON.stringify({ type: 'response.create', model: 'gamma-5.4', input: 'Slow [[sim:tokens=40]] [[sim:chunk_delay_ms=50]]' }));
  await new Promise<void>((resolve) => socket.ws.on('message', () => socket.received.length >= 6 && resolve()));
  socket.ws.terminate();
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  for (let i = 0; i < 50 && ledger.rows(id).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  t.match(ledger.rows(id), [{ endpoint: 'responses', outcome: 'client_disconnected', status: 499 }]);
  t.notOk(
    h.logs.some((line) => line.includes('a websocket message failed')),
    'not logged as a failure of the gateway',
  );
});

t.test('metrics count each message as a responses call', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi' });
  await socket.turn({ type: 'response.create', model: 'gamma-5.4', input: 'Hi again' });
  socket.close();
  const text = await (await fetch(`${h.origin}/metrics`)).text();
  const line = text
    .split('\n')
    .find((row) => row.startsWith('gateway_requests_total{') && row.includes('endpoint="responses"') && row.includes('status_class="2xx"'));
  t.ok(line, 'a series for the endpoint');
  t.equal(Number(line?.split(' ').at(-1)), 2);
});

t.test("the official openai client's ResponsesWS: a tool loop on one connection, store: false", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const socket = new ResponsesWS(h.client(key));
  const events: string[] = [];
  const completed: OpenAI.Responses.Response[] = [];
  let done: (() => void) | null = null;
  socket.on('event', (event) => events.push(event.type));
  socket.on('response.completed', (event) => {
    completed.push(event.response);
    done?.();
  });
  socket.on('error', (error) => t.fail(error.message));
  const turn = (body: Record<string, unknown>): Promise<OpenAI.Responses.Response> =>
    new Promise((resolve) => {
      done = () => resolve(completed.at(-1) as OpenAI.Responses.Response);
      socket.send({ type: 'response.create', model: 'alpha-sonnet-4.6', store: false, ...body });
    });
  const asked = await turn({ input: 'Look it up', tools });
  const call = asked.output.find((item) => item.type === 'function_call');
  t.ok(call, 'the model called the tool');
  const answered = await turn({
    previous_response_id: asked.id,
    tools,
    input: [{ type: 'function_call_output', call_id: call?.type === 'function_call' ? call.call_id : '', output: 'found it' }],
  });
  t.equal(answered.previous_response_id, asked.id);
  const message = answered.output.find((item) => item.type === 'message');
  t.match(message, { role: 'assistant', content: [{ type: 'output_text', text: /./ }] }, 'answered in text');
  t.ok(events.includes('response.output_text.delta'));
  socket.close();
});
