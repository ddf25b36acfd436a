import type OpenAI from 'openai';
import type { Test } from 'tap';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';

/**
 * POST /v1/responses through the official client's `responses` API, for one model of each
 * family: whole and streamed replies with exact usage, `responses.stream()` to its final
 * response, function tools over two turns, JSON schema output, and a reply cut by
 * max_output_tokens. The caller cannot tell the families apart, except by `model`.
 */

type Json = Record<string, any>;
const MODELS = ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4'] as const;
const WEATHER: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};
const usage = (input: number, output: number): Json => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: input + output,
});

async function events(stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>): Promise<OpenAI.Responses.ResponseStreamEvent[]> {
  const out: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

async function plainAndStreamed(t: Test, client: OpenAI, model: string): Promise<void> {
  const plain = await client.responses.create({ model, input: 'Say hi [[sim:tokens=5]]', instructions: 'Be brief.', metadata: { run: 'e2e' } });
  t.match(plain.id, /^resp_[0-9a-f]{12}[A-Za-z0-9]{24}$/);
  t.equal(plain.object, 'response');
  t.equal(plain.status, 'completed');
  t.equal(plain.model, model);
  t.ok(Math.abs(plain.created_at - Date.now() / 1000) < 60, 'created_at is Unix seconds');
  t.equal(plain.output_text, 'Hello from the simulated upstream;');
  t.match(plain.output, [{ id: /^msg_/, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', annotations: [] }] }]);
  t.same(plain.usage, usage(5, 5), 'usage as the vendor counted it (instructions are input)');
  t.same(
    [plain.instructions, plain.metadata, (plain as Json)['store'], plain.error, plain.incomplete_details],
    ['Be brief.', { run: 'e2e' }, true, null, null],
    'the echo',
  );

  const all = await events(await client.responses.create({ model, input: 'go [[sim:tokens=4]]', stream: true }));
  const types = all.map((e) => e.type);
  t.same(types.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
  t.same(types.slice(-5), [
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  t.same(
    all.map((e) => e.sequence_number),
    all.map((_, i) => i),
    'sequence numbers count from 0',
  );
  const deltas = all.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
  t.equal(deltas.join(''), 'Hello from the simulated');
  const last = all.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
  t.equal(last.response.status, 'completed');
  t.same(last.response.usage, usage(2, 4), 'the terminal event carries the usage');
  t.equal((all[0] as OpenAI.Responses.ResponseCreatedEvent).response.id, last.response.id, 'one id for the whole stream');
  t.same(last.response.output, [(all.at(-2) as OpenAI.Responses.ResponseOutputItemDoneEvent).item], 'the output is the items done');

  const stream = client.responses.stream({ model, input: 'again [[sim:tokens=3]]' });
  const text: string[] = [];
  stream.on('response.output_text.delta', (event) => text.push(event.delta));
  const final = await stream.finalResponse();
  t.equal(final.output_text, 'Hello from the');
  t.equal(text.join(''), 'Hello from the', 'the helper saw every delta');
  t.equal(final.status, 'completed');
}

async function toolTurns(t: Test, client: OpenAI, model: string): Promise<void> {
  const question: OpenAI.Responses.ResponseInputItem = { role: 'user', content: 'Weather in Oslo?' };
  const first = await client.responses.create({ model, input: [question], tools: [WEATHER] });
  const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
  t.match(call, { id: /^fc_/, type: 'function_call', status: 'completed', name: 'get_weather', arguments: '{"city":"sample"}' });
  t.ok(call?.call_id, 'the vendor call id is the call_id');
  t.equal(first.status, 'completed');

  // The second turn sends the whole transcript back, the output items as they came.
  const second = client.responses.stream({
    model,
    tools: [WEATHER],
    input: [
      question,
      ...(first.output as OpenAI.Responses.ResponseInputItem[]),
      { type: 'function_call_output', call_id: call?.call_id ?? '', output: '{"temp_c":4}' },
    ],
  });
  const reply = await second.finalResponse();
  t.match(reply.output_text, /^Tool results: .*"temp_c":4/, 'the vendor saw the output of its call');

  const streamed = await events(await client.responses.create({ model, input: [question], tools: [WEATHER], tool_choice: 'required', stream: true }));
  // Beta's reasoning item (its thought signature) may come first.
  const added = streamed.find(
    (e) => e.type === 'response.output_item.added' && e.item.type === 'function_call',
  ) as OpenAI.Responses.ResponseOutputItemAddedEvent;
  t.match(added.item, { type: 'function_call', status: 'in_progress', name: 'get_weather', arguments: '' });
  const done = streamed.find((e) => e.type === 'response.function_call_arguments.done') as OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent;
  t.equal(done.arguments, '{"city":"sample"}');
  const deltas = streamed.flatMap((e) => (e.type === 'response.function_call_arguments.delta' ? [e.delta] : []));
  t.equal(deltas.join(''), '{"city":"sample"}', 'the argument deltas add up');
}

async function structured(t: Test, client: OpenAI, model: string): Promise<void> {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, temp_c: { type: 'number' } },
    required: ['city', 'temp_c'],
    additionalProperties: false,
  };
  const reply = await client.responses.create({ model, input: 'Weather as JSON', text: { format: { type: 'json_schema', name: 'weather', schema } } });
  t.same(JSON.parse(reply.output_text), { city: 'sample', temp_c: 1 }, 'JSON of the schema');
  t.same(
    reply.text?.format,
    { type: 'json_schema', name: 'weather', schema, description: null, strict: true },
    'the format echoed, its strict as in effect (absent, and the schema allows it)',
  );

  const cut = await client.responses.create({ model, input: 'long [[sim:tokens=9]]', max_output_tokens: 2 });
  t.equal(cut.status, 'incomplete');
  t.same(cut.incomplete_details, { reason: 'max_output_tokens' });
  t.equal(cut.output[0]?.type === 'message' && cut.output[0].status, 'incomplete', 'the cut item too');
  const cutStream = await events(await client.responses.create({ model, input: 'long [[sim:tokens=9]]', max_output_tokens: 2, stream: true }));
  t.equal(cutStream.at(-1)?.type, 'response.incomplete', 'the terminal event of an incomplete response');
}

for (const model of MODELS) {
  t.test(`${model} through the official client`, async (t) => {
    const h = await startHarness(t);
    const client = h.client((await h.createKey()).key);
    await t.test('whole, streamed, and the stream helper', (t) => plainAndStreamed(t, client, model));
    await t.test('function tools over two turns', (t) => toolTurns(t, client, model));
    await t.test('JSON schema output and max_output_tokens', (t) => structured(t, client, model));
  });
}
