import OpenAI from 'openai';
import t from 'tap';
import { openedBy } from '../helpers/reasoning-seal.js';
import { RESPONSE_STATE } from '../../plugins/ingress-responses/store/state.js';
import { readFileSync } from 'node:fs';
import { ADMIN_TOKEN, FakeClock, GAMMA_UPSTREAM_KEY, startHarness, type Harness } from '../helpers/harness.js';

/**
 * Conversations on /v1/responses: continuing a stored response (across families), the one answer
 * for an id a key cannot continue (no upstream call), a stored image for a model without vision, no secret kept in clear, expiry, a Codex-style call (store: false,
 * the whole transcript each turn, id-less items, reasoning without content), and a stream that
 * breaks mid-way.
 */

type Json = Record<string, any>;
const DAY_MS = 24 * 60 * 60 * 1000;

const upstreamCount = (h: Harness): number => h.alpha.requests.length + h.beta.requests.length + h.gamma.requests.length;
const lastBody = (sim: Harness['alpha']): Json => JSON.parse(sim.requests.at(-1)?.body ?? '{}') as Json;

async function post(h: Harness, key: string, body: Json): Promise<{ status: number; text: string; json: () => Json }> {
  const res = await fetch(`${h.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Json };
}

/** The events of an SSE body: `event:` name and parsed data, which must agree. */
function events(text: string): Json[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const [event, data] = frame.split('\n');
      const parsed = JSON.parse(data?.replace(/^data: /, '') ?? '') as Json;
      if (event !== `event: ${String(parsed['type'])}`) throw new Error(`event line ${event} for ${String(parsed['type'])}`);
      return parsed;
    });
}

t.test('previous_response_id continues a stored response, in any family', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  const first = await client.responses.create({ model: 'gamma-5.4', instructions: 'Be brief.', input: 'My name is Ada [[sim:tokens=2]]' });
  const second = await client.responses.create({ model: 'alpha-sonnet-4.6', previous_response_id: first.id, input: 'What is my name? [[sim:tokens=3]]' });
  t.equal(second.previous_response_id, first.id);
  const alpha = lastBody(h.alpha);
  t.same(
    alpha['messages'],
    [
      { role: 'user', content: [{ type: 'text', text: 'My name is Ada [[sim:tokens=2]]' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello from' }] },
      { role: 'user', content: [{ type: 'text', text: 'What is my name? [[sim:tokens=3]]' }] },
    ],
    'the stored items, then the new input',
  );
  t.equal(alpha['system'], undefined, 'instructions are not inherited');

  const third = await client.responses.stream({ model: 'beta-3-flash', previous_response_id: second.id, input: 'And again' }).finalResponse();
  t.equal(third.status, 'completed');
  t.same(
    lastBody(h.beta)['contents'].map((c: Json) => c.role),
    ['user', 'model', 'user', 'model', 'user'],
    'the whole conversation, oldest first',
  );

  // A call made in one response is answered in the next, through the stored items.
  const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} }, strict: false }];
  const asked = await client.responses.create({ model: 'gamma-5.4', input: 'Look it up', tools });
  const call = asked.output.find((item) => item.type === 'function_call');
  const answered = await client.responses.create({
    model: 'gamma-5.4',
    previous_response_id: asked.id,
    tools,
    input: [{ type: 'function_call_output', call_id: call?.type === 'function_call' ? call.call_id : '', output: 'found it' }],
  });
  t.equal(answered.output_text, 'Tool results: found it');
});

t.test('an id this key cannot continue: one 400, and no upstream call', async (t) => {
  const h = await startHarness(t);
  const mine = (await h.createKey()).key;
  const other = (await h.createKey()).key;
  const stored = (await post(h, mine, { model: 'gamma-5.4', input: 'kept' })).json();
  const unstored = (await post(h, mine, { model: 'gamma-5.4', input: 'not kept', store: false })).json();
  t.equal(unstored['store'], false);
  const cases: Array<[string, string, string]> = [
    ["another key's id", other, stored['id']],
    ['an unknown id', mine, 'resp_unknown000000000000000'],
    ['a store: false response', mine, unstored['id']],
  ];
  for (const [name, key, id] of cases) {
    for (const model of ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4']) {
      const before = upstreamCount(h);
      const res = await post(h, key, { model, previous_response_id: id, input: 'go on', stream: true });
      t.equal(res.status, 400, `${name} [${model}]`);
      t.same(res.json(), {
        error: {
          message: `Previous response with id '${id}' not found.`,
          type: 'invalid_request',
          code: 'previous_response_not_found',
          param: 'previous_response_id',
        },
      });
      t.equal(upstreamCount(h), before, 'no upstream call');
    }
  }
  t.equal((await post(h, mine, { model: 'gamma-5.4', previous_response_id: stored['id'], input: 'go on' })).status, 200, 'its own key continues it');
});

t.test('a stored conversation with images, continued on a model that takes none: the 400, no upstream call', async (t) => {
  const h = await startHarness(t);
  const key = (await h.createKey()).key;
  const image = { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' };
  const stored = (await post(h, key, { model: 'gamma-5.4', input: [{ role: 'user', content: [{ type: 'input_text', text: 'what is this' }, image] }] })).json();
  const before = upstreamCount(h);
  const res = await post(h, key, { model: 'gamma-5.3-code', previous_response_id: stored['id'], input: 'and now?' });
  t.equal(res.status, 400);
  t.match(res.json(), { error: { type: 'invalid_request', param: 'previous_response_id', message: /does not accept images/ } });
  t.equal(upstreamCount(h), before, 'no upstream call');
  t.equal(
    (
      await post(h, key, {
        model: 'gamma-5.3-code',
        previous_response_id: (await post(h, key, { model: 'gamma-5.4', input: 'text only' })).json()['id'],
        input: 'and now?',
      })
    ).status,
    200,
    'a conversation without images continues',
  );
});

t.test("a stored response keeps none of the gateway's secrets in clear", async (t) => {
  const h = await startHarness(t);
  const key = (await h.createKey()).key;
  const pasted = `keys: ${key} ${GAMMA_UPSTREAM_KEY} ${ADMIN_TOKEN} and sk-looks-like-a-key-but-is-content [[sim:tokens=2]]`;
  const first = await post(h, key, { model: 'gamma-5.4', input: pasted });
  t.equal(first.status, 200);
  const stored = readFileSync(h.dbPath).toString('latin1') + readFileSync(`${h.dbPath}-wal`).toString('latin1');
  for (const [name, secret] of [
    ['the calling key', key],
    ['the upstream credential', GAMMA_UPSTREAM_KEY],
    ['the admin token', ADMIN_TOKEN],
  ] as const) {
    t.notOk(stored.includes(secret), `${name} is not in the database`);
  }
  await post(h, key, { model: 'gamma-5.4', previous_response_id: first.json()['id'], input: 'go on' });
  const replayed = JSON.stringify(lastBody(h.gamma)['messages'][0]);
  t.match(replayed, 'keys: [redacted] [redacted] [redacted] and sk-looks-like-a-key-but-is-content', 'replayed with the secrets taken out, and only them');
});

t.test('stored responses expire with the usage window, and are pruned', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const { id: keyId, key } = await h.createKey();
  const old = (await post(h, key, { model: 'gamma-5.4', input: 'old' })).json();
  clock.advance(29 * DAY_MS);
  t.equal((await post(h, key, { model: 'gamma-5.4', input: 'still there', previous_response_id: old['id'] })).status, 200, 'within 30 days');
  clock.advance(2 * DAY_MS);
  const expired = await post(h, key, { model: 'gamma-5.4', input: 'gone', previous_response_id: old['id'] });
  t.equal(expired.json()['error']?.code, 'previous_response_not_found', 'after 30 days');
  t.equal((await post(h, key, { model: 'gamma-5.4', input: 'a later save' })).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.same(await (await h.store.extend(RESPONSE_STATE)).thread(keyId, old['id'], 0), [], 'pruned after a later save');
  t.ok(h.logs.some((line) => line.includes('expired responses pruned')));
});

t.test('a Codex-style call: store false, streamed, the whole transcript with id-less items', async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  const shell = {
    type: 'function',
    name: 'shell',
    parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } } },
    strict: false,
  };
  // A reasoning item alpha really made (its simulator verifies its signatures, as the vendor does).
  const thought = (await post(h, key, { model: 'alpha-sonnet-4.6', input: 'List the files.', tools: [shell], reasoning: { effort: 'low' } })).json()[
    'output'
  ][0] as Json;
  t.match(thought, { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Considering the request step by step.' }], encrypted_content: /^gw2\./ });
  const alphaState = await openedBy(h.store, keyId, thought['encrypted_content']);
  for (const model of ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4']) {
    const res = await post(h, key, {
      model,
      instructions: 'You are a coding agent.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Sandbox: read-only.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files.' }] },
        { type: 'reasoning', summary: [], encrypted_content: null },
        { type: 'reasoning', summary: thought['summary'], encrypted_content: thought['encrypted_content'] },
        { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'call_ls' },
        { type: 'function_call_output', call_id: 'call_ls', output: 'README.md\nsrc' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Two entries.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks [[sim:tokens=3]]' }] },
      ],
      // Codex may replay a history of calls without offering tools.
      tools: [],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: '019a7c1e-session',
    });
    t.equal(res.status, 200, `${model}: ${res.text.slice(0, 300)}`);
    const all = events(res.text);
    t.same(
      all.map((e) => e['sequence_number']),
      all.map((_, i) => i),
    );
    const done = all.filter((e) => e['type'] === 'response.output_item.done').map((e) => e['item']);
    t.match(done, [{ type: 'message', content: [{ type: 'output_text', text: 'Hello from the' }] }], 'the turn, from output_item.done');
    const last = all.at(-1) as Json;
    t.equal(last['type'], 'response.completed');
    t.match(last['response'], {
      id: /^resp_/,
      store: false,
      usage: { input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    });
    const again = await post(h, key, { model, previous_response_id: last['response'].id, input: 'more' });
    t.equal(again.json()['error']?.code, 'previous_response_not_found', 'nothing was stored');
  }
  const alpha = lastBody(h.alpha);
  t.same(
    alpha['messages'][1],
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Considering the request step by step.', signature: alphaState?.data },
        { type: 'tool_use', id: 'call_ls', name: 'shell', input: { command: ['ls'] } },
      ],
    },
    'alpha gets its own reasoning back; a reasoning item without content is not sent',
  );
  t.same(
    [alpha['tools'], alpha['tool_choice']],
    [[{ name: 'shell', input_schema: { type: 'object' } }], { type: 'none' }],
    'alpha: the tools the history names, declared and not offered',
  );
  t.notOk(
    lastBody(h.beta)['contents'][1].parts.some((part: Json) => part.thought),
    "beta: alpha's reasoning is dropped",
  );
  t.same(
    lastBody(h.gamma)['messages'].map((m: Json) => m.role),
    ['system', 'user', 'assistant', 'tool', 'assistant', 'user'],
  );
  t.equal(lastBody(h.gamma)['messages'][0].content, 'You are a coding agent.\n\nSandbox: read-only.', 'instructions first, then the developer message');
});

t.test('a stream that breaks mid-way ends with the error event and response.failed', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  for (const model of ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4']) {
    const res = await post(h, key, { model, input: 'long answer [[sim:reset_after=2]]', stream: true });
    const all = events(res.text);
    t.equal(all[0]?.['type'], 'response.created', model);
    const [error, failed] = all.slice(-2) as [Json, Json];
    t.match(error, {
      type: 'error',
      code: 'bad_gateway',
      message: /upstream/,
      param: null,
      error: { type: 'upstream_error', code: 'bad_gateway', param: null },
    });
    t.equal(error['message'], error['error'].message);
    t.match(failed, { type: 'response.failed', response: { status: 'failed', error: { code: 'bad_gateway', message: error['message'] } } });
    const added = all.filter((e) => e['type'] === 'response.output_item.added').length;
    t.equal(all.filter((e) => e['type'] === 'response.output_item.done').length, added, `${model}: every item added is done`);
    t.equal(failed['response'].output.length, added, `${model}: response.failed carries every item`);
    // Alpha's simulated break comes before its first text delta: nothing was open yet.
    if (added > 0) t.match(failed['response'].output.at(-1), { type: 'message', status: 'incomplete' }, `${model}: the item cut short is incomplete`);
    t.notOk(all.some((e) => e['type'] === 'response.completed'));
    t.same(
      all.map((e) => e['sequence_number']),
      all.map((_, i) => i),
    );
  }
  const client = h.client(key);
  const stream = await client.responses.create({ model: 'gamma-5.4', input: 'long answer [[sim:reset_after=2]]', stream: true });
  const caught = await (async (): Promise<unknown> => {
    try {
      for await (const _chunk of stream) {
        // read to the end: only how it ends matters
      }
    } catch (error) {
      return error;
    }
    return null;
  })();
  t.ok(caught instanceof OpenAI.APIError, 'the official client raises the error event');
  t.match((caught as Error).message, /The gamma upstream could not be reached or failed/);
});
