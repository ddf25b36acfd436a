import OpenAI from 'openai';
import type { Test } from 'tap';
import type { Fault } from '../../src/simulators/faults.js';
import type { SimServer } from '../../src/simulators/sim-server.js';
import type { Harness } from './harness.js';

/**
 * Scenarios every non-reference family must pass identically through the official client
 * (the caller must not be able to tell which family answered, except by `model`). Each takes
 * tap's `t`; the family's own test file adds what reached its upstream.
 */

type T = Test;
type Client = OpenAI;

export const WEATHER_TOOLS: OpenAI.ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

export async function collect<C>(stream: AsyncIterable<C>): Promise<C[]> {
  const chunks: C[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Plain and streamed replies with exact usage; the alias answered as canonical; max_tokens → length. */
export async function plainAndStreamed(t: T, client: Client, model: string, alias: string): Promise<void> {
  const plain = await client.chat.completions.create({ model: alias, messages: [{ role: 'user', content: 'Say hi [[sim:tokens=5]]' }] });
  t.match(plain.id, /^chatcmpl-[A-Za-z0-9]{20,}$/);
  t.equal(plain.object, 'chat.completion');
  t.equal(plain.model, model, 'the alias is answered as the canonical model');
  t.ok(Number.isInteger(plain.created) && Math.abs(plain.created - Date.now() / 1000) < 60, 'created is Unix seconds');
  t.equal(plain.choices.length, 1);
  t.same(plain.choices[0]?.message, { role: 'assistant', content: 'Hello from the simulated upstream;', refusal: null });
  t.equal(plain.choices[0]?.finish_reason, 'stop');
  t.same(plain.usage, { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 }, 'usage exactly as the vendor counted it');

  const chunks = await collect(await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'go [[sim:tokens=4]]' }] }));
  t.same(chunks[0]?.choices[0]?.delta, { role: 'assistant', content: '' }, 'the role delta comes first');
  t.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Hello from the simulated');
  t.equal(chunks.filter((c) => c.choices[0]?.finish_reason).length, 1, 'exactly one finish chunk');
  t.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
  t.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]?.id && c.model === model && c.created === chunks[0]?.created));
  t.ok(
    chunks.every((c) => c.choices.length === 1 && !('usage' in c)),
    'no usage anywhere when not asked',
  );

  const withUsage = await collect(
    await client.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'go [[sim:tokens=4]]' }],
    }),
  );
  t.ok(
    withUsage.slice(0, -1).every((c) => c.usage === null),
    'every other chunk carries usage: null',
  );
  t.same(withUsage.at(-1)?.choices, [], 'the usage chunk has no choices');
  t.same(withUsage.at(-1)?.usage, { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });

  const limited = await client.chat.completions.create({ model, max_tokens: 3, messages: [{ role: 'user', content: 'x' }] });
  t.equal(limited.choices[0]?.finish_reason, 'length', 'max_tokens → length');
  t.equal(limited.usage?.completion_tokens, 3);
  const limitedStream = await collect(
    await client.chat.completions.create({ model, max_completion_tokens: 2, stream: true, messages: [{ role: 'user', content: 'x' }] }),
  );
  t.equal(limitedStream.at(-1)?.choices[0]?.finish_reason, 'length', 'streamed too');
}

type ToolCall = OpenAI.ChatCompletionMessageFunctionToolCall;

/** Two parallel calls, answered, then the final reply; streamed or not. Returns the calls made. */
export async function toolRoundTrip(t: T, client: Client, model: string, streamed: boolean): Promise<ToolCall[]> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo and Lima? [[sim:parallel=2]]' }];
  const first = streamed
    ? await client.chat.completions.stream({ model, tools: WEATHER_TOOLS, messages }).finalChatCompletion()
    : await client.chat.completions.create({ model, tools: WEATHER_TOOLS, messages });
  const choice = first.choices[0];
  t.equal(choice?.finish_reason, 'tool_calls');
  t.equal(choice?.message.content, null, 'no text beside the calls');
  const calls = (choice?.message.tool_calls ?? []) as ToolCall[];
  t.equal(calls.length, 2, 'two parallel calls');
  t.not(calls[0]?.id, calls[1]?.id, 'each call has its own id');
  for (const call of calls) {
    t.equal(call.type, 'function');
    t.equal(call.function.name, 'get_weather');
    t.same(JSON.parse(call.function.arguments), { city: 'sample' }, 'arguments are a JSON string');
  }
  if (!streamed) t.equal(first.usage?.completion_tokens, 20, '10 tokens per call, as the vendor counted');

  const followUp: OpenAI.ChatCompletionMessageParam[] = [
    ...messages,
    { role: 'assistant', content: null, tool_calls: calls },
    { role: 'tool', tool_call_id: calls[0]?.id ?? '', content: '{"temp_c":4}' },
    { role: 'tool', tool_call_id: calls[1]?.id ?? '', content: '{"temp_c":19}' },
  ];
  const second = streamed
    ? await client.chat.completions.stream({ model, tools: WEATHER_TOOLS, messages: followUp }).finalChatCompletion()
    : await client.chat.completions.create({ model, tools: WEATHER_TOOLS, messages: followUp });
  t.equal(second.choices[0]?.finish_reason, 'stop');
  t.match(second.choices[0]?.message.content, /^Tool results: .*temp_c.*4.*temp_c.*19/, 'the results reached the model');
  return calls;
}

/** json_object and json_schema, plain and streamed: plain JSON in `content`. */
export async function jsonMode(t: T, client: Client, model: string): Promise<void> {
  const schema = {
    type: 'object',
    additionalProperties: false,
    properties: { city: { type: 'string' }, population: { type: 'integer' } },
    required: ['city', 'population'],
  };
  const structured = await client.chat.completions.create({
    model,
    response_format: { type: 'json_schema', json_schema: { name: 'city_fact', schema } },
    messages: [{ role: 'user', content: 'Largest city in Norway, as JSON' }],
  });
  t.equal(structured.choices[0]?.finish_reason, 'stop');
  t.same(JSON.parse(structured.choices[0]?.message.content ?? ''), { city: 'sample', population: 1 });
  t.notOk(structured.choices[0]?.message.tool_calls, 'no tool call shows');

  const anyObject = await client.chat.completions.create({
    model,
    response_format: { type: 'json_object' },
    messages: [{ role: 'user', content: 'JSON please' }],
  });
  t.type(JSON.parse(anyObject.choices[0]?.message.content ?? ''), 'object');

  const streamed = await collect(
    await client.chat.completions.create({
      model,
      stream: true,
      response_format: { type: 'json_schema', json_schema: { name: 'city_fact', schema } },
      messages: [{ role: 'user', content: 'Largest city in Norway, as JSON' }],
    }),
  );
  t.same(JSON.parse(streamed.map((c) => c.choices[0]?.delta.content ?? '').join('')), { city: 'sample', population: 1 });
  t.equal(streamed.at(-1)?.choices[0]?.finish_reason, 'stop');
  t.ok(
    streamed.every((c) => !c.choices[0]?.delta.tool_calls),
    'streamed as text, not tool calls',
  );
}

/** Legacy /v1/completions, plain and streamed. */
export async function legacyCompletions(t: T, client: Client, model: string): Promise<void> {
  const legacy = await client.completions.create({ model, prompt: 'Once upon', max_tokens: 4 });
  t.match(legacy.id, /^cmpl-/);
  t.equal(legacy.object, 'text_completion');
  t.equal(legacy.model, model);
  t.same(legacy.choices, [{ text: 'Hello from the simulated', index: 0, logprobs: null, finish_reason: 'length' }]);
  t.same(legacy.usage, { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });
  const chunks = await collect(
    await client.completions.create({ model, prompt: 'Once upon [[sim:tokens=3]]', stream: true, stream_options: { include_usage: true } }),
  );
  t.ok(chunks.every((c) => c.object === 'text_completion' && c.id.startsWith('cmpl-')));
  t.equal(chunks.map((c) => c.choices[0]?.text ?? '').join(''), 'Hello from the');
  t.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'stop');
  t.same(chunks.at(-1)?.usage, { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
  const refused = await client.completions.create({ model, prompt: 'x', echo: true }).catch((e: unknown) => e);
  t.equal((refused as InstanceType<typeof OpenAI.APIError>).status, 400);
  t.equal((refused as InstanceType<typeof OpenAI.APIError>).param, 'echo');
}

/** An upstream stream cut off, and the vendor's own error event mid-stream: our error event, never a hang. */
export async function midStreamFailures(t: T, client: Client, model: string, vendorMessage: RegExp): Promise<void> {
  const seen: string[] = [];
  const reset = await (async () => {
    for await (const chunk of await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'x [[sim:reset_after=4]]' }] })) {
      seen.push(chunk.choices[0]?.delta.content ?? '');
    }
  })().catch((e: unknown) => e);
  t.type(reset, OpenAI.APIError, 'a reset ends the stream with an error event');
  t.match((reset as Error).message, /broke off/);
  t.ok(seen.join('').length > 0, 'what came before the reset was relayed');

  const failed = await collect(
    await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'x [[sim:error_after=4]]' }] }),
  ).catch((e: unknown) => e);
  t.type(failed, OpenAI.APIError, "the vendor's error event ends the stream with ours");
  t.match((failed as Error).message, vendorMessage);
  t.equal((failed as InstanceType<typeof OpenAI.APIError>).type, 'unavailable', 'in our envelope');
}

/** Raw POST through fetch, for status and headers the client hides. */
export async function post(h: Harness, key: string, path: string, body: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(`${h.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

export interface ErrorCase {
  fault: Fault;
  status: number;
  type: string;
  code?: string;
}

/** Each vendor fault, queued on the family's simulator, reaches the caller as our envelope with the mapped status. */
export async function mappedErrors(t: T, h: Harness, key: string, sim: SimServer, model: string, cases: ErrorCase[]): Promise<void> {
  for (const { fault, status, type, code } of cases) {
    sim.faults.push(fault);
    const res = await post(h, key, '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'x' }] });
    const label = `${sim.vendor.name} ${fault.status ?? ''} ${fault.errorType ?? ''}${fault.rawBody ? 'garbage' : ''} → ${status}`;
    t.equal(res.status, status, label);
    t.equal(res.json.error.type, type, label);
    if (code) t.equal(res.json.error.code, code, label);
    t.equal(Object.keys(res.json.error).sort().join(), 'code,message,param,type', 'our envelope');
    if (!fault.rawBody && status !== 502) t.match(res.json.error.message, /simulated/, "the vendor's message is kept");
    if (fault.retryAfter) t.equal(res.headers.get('retry-after'), fault.retryAfter, 'Retry-After passes through');
  }
}
