import type { Test } from 'tap';
import t from 'tap';
import { responsesFormat } from '../../plugins/ingress-responses/format.js';
import type { ResponsesStream } from '../../plugins/ingress-responses/stream.js';
import { GatewayError } from '../../src/http/errors.js';
import { raw, startHarness } from '../helpers/harness.js';
import { responseProblems, sseEvents, streamProblems } from '../helpers/open-responses.js';
import { responsesCall } from '../helpers/responses-call.js';

/**
 * Every response object POST /v1/responses writes, whole or embedded in a stream's events, and
 * every event of its streams, validate against the Open Responses specification's JSON schemas
 * (test/fixtures/open-responses): for a model of each family, a plain answer, function tools,
 * reasoning, JSON output, an answer cut by max_output_tokens, and a stream that fails after its
 * 200; and, from the format's writer, what the simulators do not send (a refusal, a redacted
 * reasoning run, a failure before any output). The echo carries the request's settings, or the
 * values in effect.
 */

type Json = Record<string, any>;
const MODELS = ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4'] as const;
const TOOL = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};
const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, temp_c: { type: 'number' } },
  required: ['city', 'temp_c'],
  additionalProperties: false,
};

/** The requests every family answers, by what they exercise (each is sent whole and streamed). */
const CASES: ReadonlyArray<[string, Json]> = [
  ['a plain answer', { input: 'Say hi [[sim:tokens=3]]' }],
  ['a function call', { input: 'Weather in Oslo?', tools: [TOOL], tool_choice: 'required' }],
  ['reasoning, then the answer', { input: 'Think first [[sim:tokens=3]]', reasoning: { effort: 'high' } }],
  ['reasoning, then a call', { input: 'Weather in Oslo?', tools: [TOOL], reasoning: { effort: 'high' } }],
  ['JSON output', { input: 'Weather as JSON', text: { format: { type: 'json_schema', name: 'weather', schema: SCHEMA } } }],
  ['an answer cut by max_output_tokens', { input: 'long [[sim:tokens=9]]', max_output_tokens: 2 }],
];

async function post(origin: string, key: string, body: Json): Promise<{ status: number; text: string }> {
  const res = await raw(origin, 'POST', '/v1/responses', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: res.text };
}

async function conforms(t: Test, origin: string, key: string, model: string, body: Json): Promise<{ whole: Json; events: Json[] }> {
  const whole = await post(origin, key, { model, ...body });
  if (whole.status !== 200) t.fail(`answered ${whole.status}: ${whole.text}`);
  const response = JSON.parse(whole.text) as Json;
  t.same(responseProblems(response), [], 'the response object');
  const streamed = await post(origin, key, { model, ...body, stream: true });
  if (streamed.status !== 200) t.fail(`answered ${streamed.status}: ${streamed.text}`);
  const events = sseEvents(streamed.text);
  t.same(streamProblems(events), [], 'every event of the stream');
  return { whole: response, events: events.map((event) => event.data) };
}

for (const model of MODELS) {
  t.test(`${model}: Responses output per the Open Responses schemas`, async (t) => {
    const h = await startHarness(t);
    const { key } = await h.createKey();
    for (const [name, body] of CASES) {
      await t.test(name, async (t) => {
        const { whole, events } = await conforms(t, h.origin, key, model, body);
        const terminal = events.at(-1) as Json;
        t.equal(whole['status'], terminal['response'].status, 'the same ending whole and streamed');
        t.equal(events[0]?.['response'].completed_at, null, 'completed_at: null until the response is done');
        t.type(terminal['response'].completed_at, 'number', 'set when it is');
        // gamma's chat format shows no reasoning; alpha and beta return their state.
        if (body['reasoning'] && !model.startsWith('gamma'))
          t.match(whole['output'][0], { type: 'reasoning', status: 'completed', encrypted_content: /^gw2\./ }, 'the reasoning item first');
        for (const item of [...whole['output'], ...terminal['response'].output]) {
          if (item.type === 'reasoning') t.not(item.encrypted_content, null, 'encrypted_content is a string or absent');
        }
      });
    }

    await t.test('a stream that fails after its 200: the error event, then response.failed', async (t) => {
      const streamed = await post(h.origin, key, { model, input: 'go [[sim:tokens=6]] [[sim:error_after=3]]', stream: true });
      const events = sseEvents(streamed.text);
      t.same(streamProblems(events), [], 'every event of the stream');
      t.same(
        events.slice(-2).map((event) => event.data['type']),
        ['error', 'response.failed'],
      );
      t.equal((events.at(-1)?.data['response'] as Json | undefined)?.['completed_at'], null, 'a failed response was never completed');
    });

    await t.test("the echo: the request's values, or the values in effect", async (t) => {
      const defaults = JSON.parse(
        (await post(h.origin, key, { model, input: 'Hi [[sim:tokens=1]]', tools: [{ type: 'function', name: 'f' }, TOOL] })).text,
      ) as Json;
      t.match(defaults, {
        temperature: 1,
        top_p: 1,
        presence_penalty: 0,
        frequency_penalty: 0,
        top_logprobs: 0,
        max_tool_calls: null,
        background: false,
        service_tier: 'default',
        user: null,
        safety_identifier: null,
        prompt_cache_key: null,
        metadata: {},
        text: { format: { type: 'text' } },
        reasoning: { effort: null, summary: null },
        usage: { input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
      });
      t.same(
        defaults['tools'],
        [
          { type: 'function', name: 'f', description: null, parameters: null, strict: false },
          { ...TOOL, description: null, strict: true },
        ],
        'every member of a function tool; strict as in effect: absent means strict when the schema allows it',
      );

      const given = {
        temperature: 0.5,
        top_p: 0.9,
        user: 'u-1',
        safety_identifier: 'sid',
        prompt_cache_key: 'pck',
        metadata: { a: 'b' },
        tools: [{ ...TOOL, description: 'd', strict: false }],
      };
      const echoed = JSON.parse((await post(h.origin, key, { model, input: 'Hi [[sim:tokens=1]]', ...given })).text) as Json;
      t.same(responseProblems(echoed), []);
      t.match(echoed, { ...given, tools: [{ ...TOOL, description: 'd', strict: false }] });
    });
  });
}

t.test('the writer: a refusal, a redacted run, a failure before any output', async (t) => {
  const output = () => responsesFormat.output(responsesCall({ model: 'gamma-5.4', input: 'Hi', stream: true }));
  const s = output().sink() as ResponsesStream;
  let out =
    s.start() +
    s.reasoning(0, '') +
    s.reasoningState(0, { family: 'alpha', kind: 'redacted', data: 'r' }) +
    s.text(0, 'Sorry. ') +
    s.refusal(0, 'I cannot help.') +
    s.finish(0, 'content_filter');
  s.close({ promptTokens: 1, completionTokens: 2 });
  out += s.done();
  t.same(streamProblems(sseEvents(out)), [], 'refused, streamed');
  t.equal(sseEvents(out).at(-1)?.name, 'response.incomplete');

  const whole = output().render({
    choices: [{ content: 'Sorry. ', refusal: 'I cannot help.', toolCalls: [], finish: 'content_filter', reasoning: [{ text: '', state: null }] }],
    usage: { promptTokens: 1, completionTokens: 2 },
  });
  t.same(responseProblems(JSON.parse(String(whole.body))), [], 'refused, whole; a reasoning run without a state');

  const failed = (output().sink() as ResponsesStream).fail(new GatewayError(502, 'The upstream failed.'));
  t.same(streamProblems(sseEvents(failed)), [], 'failed before any output: opened, the error, response.failed');
});
