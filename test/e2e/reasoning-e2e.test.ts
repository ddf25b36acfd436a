import type OpenAI from 'openai';
import t, { type Test } from 'tap';
import { legacyEnvelope, openedBy } from '../helpers/reasoning-seal.js';
import { THINKING } from '../../src/simulators/reply-plan.js';
import { collect, post, WEATHER_TOOLS } from '../helpers/chat-scenarios.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/**
 * Reasoning end to end through the real gateway and the simulators, which sign their thinking
 * and refuse a tool turn without it as the vendors do: a two-turn tool conversation with thinking
 * on alpha and on beta through the chat format (whole and streamed) and through the Responses API
 * (the official client), the second turn reaching the vendor with what it requires; reasoning
 * tokens in the usage and billed exactly; a conversation moving to another family; and each
 * refused combination a 400 naming the parameter, with no upstream call.
 */

type Json = Record<string, any>;
type Message = OpenAI.ChatCompletionMessage & { reasoning_content?: string; thinking_blocks?: Json[] };
const THOUGHT = THINKING.join('');
/** Charged nano-dollars per output token (config/models.yaml). */
const PRICE: Record<string, number> = { 'alpha-sonnet-4.6': 1500, 'beta-3.1-pro': 1750, 'beta-3-flash': 38 };
const QUESTION: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Oslo?' };

const lastBody = (sim: Harness['alpha']): Json => JSON.parse(sim.requests.at(-1)?.body ?? '{}') as Json;

/** The whole message of a streamed chat reply, reasoning_content and thinking_blocks added up as a caller of the format does. */
function assemble(chunks: OpenAI.ChatCompletionChunk[]): Message {
  const message: Message = { role: 'assistant', content: null, refusal: null, tool_calls: [] };
  for (const chunk of chunks) {
    const delta = (chunk.choices[0]?.delta ?? {}) as Json;
    if (delta['content']) message.content = (message.content ?? '') + delta['content'];
    if (delta['reasoning_content']) message.reasoning_content = (message.reasoning_content ?? '') + delta['reasoning_content'];
    if (delta['thinking_blocks']) message.thinking_blocks = [...(message.thinking_blocks ?? []), ...delta['thinking_blocks']];
    for (const call of (delta['tool_calls'] ?? []) as Json[]) {
      const calls = message.tool_calls as Json[];
      const made = (calls[call['index']] ??= { id: call['id'], type: 'function', function: { name: call['function'].name, arguments: '' } });
      made['function'].arguments += call['function'].arguments ?? '';
    }
  }
  return message;
}

/** Turn 1 (the model thinks and calls), then turn 2 with the assistant message handed back as it came; returns both messages and the upstream body of turn 2. */
async function chatToolLoop(t: Test, h: Harness, client: OpenAI, model: string, streamed: boolean): Promise<{ first: Message; upstream: Json }> {
  const sim = model.startsWith('alpha') ? h.alpha : h.beta;
  const ask = async (messages: OpenAI.ChatCompletionMessageParam[]): Promise<{ message: Message; usage: OpenAI.CompletionUsage | undefined }> => {
    if (!streamed) {
      const reply = await client.chat.completions.create({ model, reasoning_effort: 'high', tools: WEATHER_TOOLS, messages });
      return { message: reply.choices[0]?.message as Message, usage: reply.usage };
    }
    const chunks = await collect(
      await client.chat.completions.create({
        model,
        reasoning_effort: 'high',
        tools: WEATHER_TOOLS,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    return { message: assemble(chunks), usage: chunks.at(-1)?.usage ?? undefined };
  };
  const { message: first, usage } = await ask([QUESTION]);
  t.equal(first.reasoning_content, THOUGHT, `${model}: the thinking as reasoning_content`);
  t.match(first.thinking_blocks, [{ type: 'thinking', thinking: THOUGHT, signature: /^gw2\./ }], 'its state in thinking_blocks');
  t.match(usage, { completion_tokens: 16, completion_tokens_details: { reasoning_tokens: 6 } }, 'reasoning tokens inside the completion tokens');
  const call = first.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
  const handedBack = {
    role: 'assistant',
    content: first.content,
    reasoning_content: first.reasoning_content,
    thinking_blocks: first.thinking_blocks,
    tool_calls: first.tool_calls,
  };
  const { message: second } = await ask([QUESTION, handedBack as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: 'sunny' }]);
  t.match(second.content, /^Tool results: .*sunny/, `${model}: the second turn goes through`);
  return { first, upstream: JSON.parse(sim.requests.at(-1)?.body ?? '{}') as Json };
}

t.test('chat format, thinking on alpha and beta: two tool turns, whole and streamed, billed exactly', async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  const client = h.client(key);
  for (const streamed of [false, true]) {
    const alpha = await chatToolLoop(t, h, client, 'alpha-sonnet-4.6', streamed);
    const signature = await openedBy(h.store, keyId, alpha.first.thinking_blocks?.[0]?.['signature']);
    t.same(
      alpha.upstream['messages'][1].content[0],
      { type: 'thinking', thinking: THOUGHT, signature: signature?.data },
      'alpha gets its signed block back first in the turn',
    );
    t.same([alpha.upstream['thinking'], alpha.upstream['output_config']], [{ type: 'adaptive' }, { effort: 'high' }]);

    const beta = await chatToolLoop(t, h, client, 'beta-3.1-pro', streamed);
    const state = await openedBy(h.store, keyId, beta.first.thinking_blocks?.[0]?.['signature']);
    t.equal(state?.family, 'beta');
    t.equal(beta.upstream['contents'][1].parts[0].thoughtSignature, state?.data, 'beta gets its signature back on the call');
    t.same(beta.upstream['generationConfig'].thinkingConfig, { thinkingLevel: 'HIGH', includeThoughts: true });
  }
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  const rows = ledger.rows(keyId);
  t.equal(rows.length, 8);
  for (const row of rows) t.equal(row.charged_nano, row.completion_tokens * (PRICE[row.model] as number), `${row.model}: thinking billed as output, exactly`);
  t.same(
    rows.filter((_, i) => i % 2 === 0).map((row) => row.completion_tokens),
    [16, 16, 16, 16],
    'each first turn: 6 thinking + one call',
  );
});

t.test('beta: the signature carried in the request reaches the vendor where the gateway never saw the call', async (t) => {
  const first = await startHarness(t);
  const { id: keyId, key } = await first.createKey();
  const client = first.client(key);
  const turn = await chatToolLoop(t, first, client, 'beta-3-flash', false);
  // The first gateway's seal opens on no other: its state goes in the envelope every gateway still reads.
  const state = await openedBy(first.store, keyId, turn.first.thinking_blocks?.[0]?.['signature']);
  const thinkingBlocks = [
    { type: 'thinking', thinking: '', signature: legacyEnvelope({ family: 'beta', kind: 'thought_signature', data: state?.data ?? '' }) },
  ];
  // Another gateway, with a store of its own (none of the first's signatures), behind the same vendor.
  const other = await startHarness(t, { beta: first.beta });
  const call = turn.first.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
  const messages = [
    QUESTION,
    { role: 'assistant', content: null, thinking_blocks: thinkingBlocks, tool_calls: [call] },
    { role: 'tool', tool_call_id: call.id, content: 'sunny' },
  ];
  const res = await post(other, (await other.createKey()).key, '/v1/chat/completions', { model: 'beta-3-flash', tools: WEATHER_TOOLS, messages });
  t.equal(res.status, 200);
  t.equal(lastBody(first.beta)['contents'][1].parts[0].thoughtSignature, state?.data, 'not the placeholder: the carried signature');
});

t.test('Responses API, thinking on alpha and beta through the official client: reasoning items replayed', async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  const client = h.client(key);
  const weather: OpenAI.Responses.FunctionTool = {
    type: 'function',
    name: 'get_weather',
    parameters: WEATHER_TOOLS[0]?.function.parameters ?? {},
    strict: false,
  };
  for (const model of ['alpha-sonnet-4.6', 'beta-3-flash']) {
    const question: OpenAI.Responses.ResponseInputItem = { role: 'user', content: 'Weather in Oslo?' };
    const first = await client.responses.create({ model, input: [question], tools: [weather], reasoning: { effort: 'low' } });
    const [reasoning, call] = first.output as [OpenAI.Responses.ResponseReasoningItem, OpenAI.Responses.ResponseFunctionToolCall];
    t.match(reasoning, { type: 'reasoning', encrypted_content: /^gw2\./ }, `${model}: a reasoning item with the vendor's state`);
    t.same(reasoning.summary, [{ type: 'summary_text', text: THOUGHT }], 'the thinking as its summary');
    t.equal(call.type, 'function_call');
    t.match(first.usage, { output_tokens: 16, output_tokens_details: { reasoning_tokens: 6 } });
    const second = await client.responses
      .stream({
        model,
        tools: [weather],
        reasoning: { effort: 'low' },
        input: [question, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
      })
      .finalResponse();
    t.match(second.output_text, /^Tool results: .*sunny/, `${model}: the second turn goes through`);
    const state = await openedBy(h.store, keyId, reasoning.encrypted_content);
    if (model.startsWith('alpha')) {
      t.same(
        lastBody(h.alpha)['messages'][1].content[0],
        { type: 'thinking', thinking: THOUGHT, signature: state?.data },
        'alpha: the thinking block, unchanged, before the tool_use',
      );
    } else {
      t.equal(lastBody(h.beta)['contents'][1].parts[0].thoughtSignature, state?.data, 'beta: the signature on the first call');
    }
  }
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  for (const row of ledger.rows(keyId))
    t.equal(row.charged_nano, row.completion_tokens * (PRICE[row.model] as number), `${row.model} on ${row.endpoint}: exact`);
});

t.test('a conversation that moves to another family drops the foreign state and goes on', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  const turn = await chatToolLoop(t, h, client, 'alpha-sonnet-4.6', false);
  const call = turn.first.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
  const history = [
    QUESTION,
    { role: 'assistant', content: null, reasoning_content: turn.first.reasoning_content, thinking_blocks: turn.first.thinking_blocks, tool_calls: [call] },
    { role: 'tool', tool_call_id: call.id, content: 'sunny' },
  ];
  for (const model of ['beta-3-flash', 'gamma-5.4']) {
    const reply = await client.chat.completions.create({
      model,
      reasoning_effort: 'low',
      tools: WEATHER_TOOLS,
      messages: history as OpenAI.ChatCompletionMessageParam[],
    });
    t.match(reply.choices[0]?.message.content, /^Tool results: .*sunny/, `${model} goes on`);
  }
  t.same(
    lastBody(h.beta)['contents'][1].parts,
    [{ functionCall: { name: 'get_weather', args: { city: 'sample' }, id: call.id }, thoughtSignature: 'skip_thought_signature_validator' }],
    "beta: alpha's thinking dropped, the placeholder on a call it never made",
  );
  t.notOk('thinking_blocks' in lastBody(h.gamma)['messages'][1], 'gamma: the handed-back reasoning left out');
});

t.test('what cannot go with thinking is a 400 naming the parameter, before any upstream call', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const cases: Array<[string, Json, string]> = [
    ['/v1/chat/completions', { model: 'alpha-sonnet-4.6', reasoning_effort: 'high', temperature: 0.5, messages: [QUESTION] }, 'temperature'],
    [
      '/v1/chat/completions',
      { model: 'alpha-sonnet-4.6', reasoning_effort: 'high', tools: WEATHER_TOOLS, tool_choice: 'required', messages: [QUESTION] },
      'tool_choice',
    ],
    [
      '/v1/chat/completions',
      { model: 'alpha-haiku-4.5', reasoning_effort: 'low', response_format: { type: 'json_object' }, messages: [QUESTION] },
      'response_format',
    ],
    [
      '/v1/chat/completions',
      { model: 'alpha-sonnet-4.6', reasoning_effort: 'high', messages: [QUESTION, { role: 'assistant', content: 'Sure,' }] },
      'reasoning_effort',
    ],
    ['/v1/chat/completions', { model: 'beta-3-flash', reasoning_effort: 'extreme', messages: [QUESTION] }, 'reasoning_effort'],
    ['/v1/responses', { model: 'alpha-sonnet-4.6', reasoning: { effort: 'medium' }, input: 'x', text: { format: { type: 'json_object' } } }, 'text.format'],
    ['/v1/responses', { model: 'alpha-sonnet-4.6', reasoning: { effort: 'medium' }, input: 'x', temperature: 0.2 }, 'temperature'],
  ];
  const before = h.alpha.requests.length + h.beta.requests.length;
  for (const [path, body, param] of cases) {
    const res = await post(h, key, path, body);
    t.same([res.status, res.json.error.param], [400, param], `${path} ${body['model']}: ${param}`);
  }
  t.equal(h.alpha.requests.length + h.beta.requests.length, before, 'no upstream call');
});
