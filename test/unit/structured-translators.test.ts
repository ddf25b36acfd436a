import t from 'tap';
import { alphaRequest } from '../../plugins/vendor-alpha/request.js';
import { AlphaTranslator } from '../../plugins/vendor-alpha/translator.js';
import { betaRequestBody } from '../../plugins/vendor-beta/request.js';
import { gammaChatBody } from '../../plugins/vendor-gamma/request.js';
import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import type { NeutralRequest, ResponseFormat, ToolSpec } from '../../src/neutral/request.js';
import { NEUTRAL } from '../helpers/neutral-call.js';
import { catalogue, frames, makeCall, runStream, thrown } from '../helpers/translate.js';

/**
 * Each vendor translator's request for the strict inputs of every format (read into the neutral
 * request: chat `function.strict` and `json_schema.strict`, Responses `strict` given or absent,
 * Messages `strict` and `output_config.format`), and alpha's refusal read back, whole and streamed.
 */

type Json = Record<string, any>;

function model(id: string): ModelEntry {
  const entry = catalogue.resolve(id);
  if (!entry) throw new Error(`${id} is not in the catalogue`);
  return entry;
}
const ALPHA = model('alpha-sonnet-4.6');
const BETA = model('beta-3-flash');
const GAMMA = model('gamma-5.4');

const CLOSED = { type: 'object', properties: { city: { type: 'string', minLength: 1 } }, required: ['city'], additionalProperties: false };
const OPEN = { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] };
const strictTool = (name: string, parameters: Json = CLOSED, param = `tools[0].function.strict`): ToolSpec => ({ name, parameters, strict: { param } });
const schemaFormat = (extra: Partial<Extract<ResponseFormat, { type: 'json_schema' }>> = {}): ResponseFormat => ({
  type: 'json_schema',
  name: 'answer',
  schema: CLOSED,
  param: 'response_format',
  ...extra,
});
const request = (extra: Partial<NeutralRequest>): NeutralRequest => ({ ...NEUTRAL, ...extra });

/** An adjustment recorder standing in for `call.adjust`. */
function recorder(): { adjust: (param: string, action: string, refusal: string) => void; seen: string[] } {
  const seen: string[] = [];
  return { seen, adjust: (param, action) => seen.push(`${param}=${action}`) };
}

t.test('alpha: a JSON schema is output_config.format, merged with the effort; its description goes into the schema', async (t) => {
  const asked = request({
    responseFormat: schemaFormat({
      strict: { param: 'response_format.json_schema.strict' },
      description: { text: 'The city asked about.', param: 'response_format.json_schema.description' },
    }),
    reasoning: { kind: 'effort', effort: 'low', param: 'reasoning_effort' },
  });
  const { body, jsonTool } = alphaRequest(asked, ALPHA, false);
  t.equal(jsonTool, false);
  t.same(
    body['output_config'],
    {
      effort: 'low',
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          description: 'The city asked about.',
          properties: { city: { type: 'string', description: '{minLength: 1}' } },
          additionalProperties: false,
          required: ['city'],
        },
      },
    },
    'thinking and JSON output together: no forced tool',
  );
  t.same([body['thinking'], body['tools'], body['tool_choice']], [{ type: 'adaptive' }, undefined, undefined]);
});

t.test('alpha: outside the subset the forced tool stays, and while thinking it is refused naming the format', async (t) => {
  const tree = { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#' } } } };
  const recursive = schemaFormat({ schema: tree });
  const plain = alphaRequest(request({ responseFormat: recursive }), ALPHA, false);
  t.same([plain.jsonTool, plain.body['tool_choice'], plain.body['output_config']], [true, { type: 'tool', name: 'json_response' }, undefined]);
  const asked = recorder();
  alphaRequest(
    request({ responseFormat: schemaFormat({ schema: tree, strict: { param: 'response_format.json_schema.strict' } }) }),
    ALPHA,
    false,
    asked.adjust,
  );
  t.same(asked.seen, ['response_format.json_schema.strict=dropped:schema'], 'a strict asked for is not honoured by the forced tool: announced');
  t.match(
    thrown(() =>
      alphaRequest(request({ responseFormat: schemaFormat({ schema: tree, strict: { param: 'response_format.json_schema.strict' } }) }), ALPHA, false),
    ),
    { status: 400, param: 'response_format.json_schema.strict' },
    'or refused',
  );
  t.match(
    thrown(() => alphaRequest(request({ responseFormat: recursive, reasoning: { kind: 'effort', effort: 'low', param: 'reasoning_effort' } }), ALPHA, false)),
    {
      status: 400,
      param: 'response_format',
      message: /recursive.*forced tool.*while it thinks/,
    },
  );
  t.match(
    thrown(() =>
      alphaRequest(
        request({ responseFormat: { type: 'json_object', param: 'response_format' }, reasoning: { kind: 'effort', effort: 'low', param: 'reasoning_effort' } }),
        ALPHA,
        false,
      ),
    ),
    {
      status: 400,
      param: 'response_format',
    },
    'json_object has no native mode: still refused while thinking',
  );
});

t.test('alpha: strict tools carry strict beside the rewritten input_schema; implied strict is not asked of alpha', async (t) => {
  const { body } = alphaRequest(
    request({
      tools: [strictTool('a'), { name: 'b', parameters: OPEN, strict: { param: 'tools[1].strict', implied: true } }, { name: 'c', parameters: OPEN }],
    }),
    ALPHA,
    false,
  );
  t.same(body['tools'], [
    {
      name: 'a',
      input_schema: {
        type: 'object',
        properties: { city: { type: 'string', description: '{minLength: 1}' } },
        additionalProperties: false,
        required: ['city'],
      },
      strict: true,
    },
    { name: 'b', input_schema: OPEN },
    { name: 'c', input_schema: OPEN },
  ]);
});

t.test('alpha: over its limits the smallest strict tools keep strict, each other one is announced, or refused without a call', async (t) => {
  // 22 strict tools: the two with the most optional properties lose strict (20 tools at most).
  const optional = (n: number): Json => ({
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }])),
  });
  const tools = Array.from({ length: 22 }, (_, i) => strictTool(`t${i}`, i === 3 || i === 7 ? optional(1) : CLOSED, `tools[${i}].function.strict`));
  const { adjust, seen } = recorder();
  const { body } = alphaRequest(request({ tools }), ALPHA, false, adjust);
  const strict = (body['tools'] as Json[]).flatMap((tool, i) => (tool['strict'] ? [i] : []));
  t.equal(strict.length, 20);
  t.same(seen, ['tools[3].function.strict=dropped:limit', 'tools[7].function.strict=dropped:limit'], 'the larger ones, each announced');
  t.same((body['tools'] as Json[])[3], { name: 't3', input_schema: optional(1) }, 'declared as sent, without strict');
  // 24 optional properties at most: a tool of 30 loses strict, the small one keeps it.
  const over = recorder();
  const small = alphaRequest(
    request({ tools: [strictTool('big', optional(30), 'tools[0].strict'), strictTool('small', CLOSED, 'tools[1].strict')] }),
    ALPHA,
    false,
    over.adjust,
  );
  t.same([over.seen, (small.body['tools'] as Json[]).map((tool) => tool['strict'] ?? false)], [['tools[0].strict=dropped:limit'], [false, true]]);
  t.match(
    thrown(() => alphaRequest(request({ tools }), ALPHA, false)),
    { status: 400, param: 'tools[3].function.strict', message: /at most 20 strict tools/ },
    'no call to announce on: refused',
  );
  const recursive = recorder();
  alphaRequest(
    request({ tools: [strictTool('tree', { type: 'object', properties: { up: { $ref: '#' } } }, 'tools[0].strict')] }),
    ALPHA,
    false,
    recursive.adjust,
  );
  t.same(recursive.seen, ['tools[0].strict=dropped:schema'], 'a schema alpha cannot compile keeps the tool, without strict, announced');
});

t.test('alpha: a refusal is the reply refusal, whole and streamed', async (t) => {
  const body =
    '{"model":"alpha-sonnet-4.6","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"a","strict":true,"schema":{"type":"object","properties":{}}}}}';
  const whole = new AlphaTranslator(makeCall(JSON.parse(body), { model: 'alpha-sonnet-4.6' }), 'k');
  whole.request();
  const message = {
    type: 'message',
    content: [],
    stop_reason: 'refusal',
    stop_details: { type: 'refusal', category: 'cyber', explanation: 'Harmful.' },
    usage: { input_tokens: 3, output_tokens: 1 },
  };
  const reply = JSON.parse(String(whole.response(Buffer.from(JSON.stringify(message))).body)) as Json;
  t.same(
    [reply['choices'][0].finish_reason, reply['choices'][0].message.refusal, reply['choices'][0].message.content],
    ['content_filter', 'Harmful. (cyber)', null],
  );
  const streamed = new AlphaTranslator(makeCall(JSON.parse(body), { model: 'alpha-sonnet-4.6', stream: true }), 'k');
  streamed.request();
  const sse =
    [
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I cannot."}}',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":"refusal"}},"usage":{"output_tokens":3}}',
      'event: message_stop\ndata: {"type":"message_stop"}',
    ].join('\n\n') + '\n\n';
  const chunks = frames(runStream(streamed, sse)) as Json[];
  const deltas = chunks.flatMap((chunk) => chunk['choices'].map((choice: Json) => choice['delta']));
  t.same(
    deltas.flatMap((delta) => (delta.content ? [delta.content] : [])),
    ['I cannot.'],
    "the model's text as it came",
  );
  t.same(
    deltas.flatMap((delta) => (delta.refusal ? [delta.refusal] : [])),
    ['The model declined to answer this request.'],
    'then the refusal',
  );
  t.equal(chunks.flatMap((chunk) => chunk['choices'].map((choice: Json) => choice['finish_reason'])).find(Boolean), 'content_filter');
});

t.test('beta: the schema in its keywords, strict tools VALIDATED, strict never sent', async (t) => {
  const tools = [strictTool('a'), { name: 'b', parameters: OPEN }];
  const body: Json = betaRequestBody(
    request({ tools, responseFormat: schemaFormat({ strict: { param: 'x' }, description: { text: 'Where.', param: 'y' } }) }),
    BETA,
    new Map(),
  );
  t.same(body['generationConfig'].responseJsonSchema, {
    type: 'object',
    description: 'Where.',
    properties: { city: { type: 'string', description: '{minLength: 1}' } },
    required: ['city'],
    additionalProperties: false,
  });
  t.same(body['generationConfig'].responseMimeType, 'application/json');
  t.same(body['tools'][0].functionDeclarations, [
    {
      name: 'a',
      parametersJsonSchema: {
        type: 'object',
        properties: { city: { type: 'string', description: '{minLength: 1}' } },
        required: ['city'],
        additionalProperties: false,
      },
    },
    { name: 'b', parametersJsonSchema: OPEN },
  ]);
  const mode = (choice: NeutralRequest['toolChoice']): Json => {
    const body: Json = betaRequestBody(request({ tools, toolChoice: choice }), BETA, new Map());
    return body['toolConfig'];
  };
  t.same(mode(null), { functionCallingConfig: { mode: 'VALIDATED' } });
  t.same(mode('auto'), { functionCallingConfig: { mode: 'VALIDATED' } });
  t.same(mode('required'), { functionCallingConfig: { mode: 'ANY' } });
  t.same(mode({ name: 'a' }), { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a'] } });
  t.same(mode('none'), { functionCallingConfig: { mode: 'NONE' } });
  const implied: Json = betaRequestBody(
    request({ tools: [{ name: 'a', parameters: OPEN, strict: { param: 'tools[0].strict', implied: true } }] }),
    BETA,
    new Map(),
  );
  t.same(
    [implied['toolConfig'], implied['tools'][0].functionDeclarations[0].parametersJsonSchema],
    [undefined, OPEN],
    "an implied strict (Responses' default) asks beta nothing",
  );
});

t.test('gamma: an implied strict is written out as the schema allows; an explicit one as asked', async (t) => {
  const implied = (parameters: Json): ToolSpec => ({ name: 'f', parameters, strict: { param: 'tools[0].strict', implied: true } });
  const strictOf = (tool: ToolSpec): unknown => {
    const body: Json = gammaChatBody(request({ tools: [tool] }), GAMMA, false);
    return body['tools'][0].function.strict;
  };
  t.equal(strictOf(implied(CLOSED)), true, 'compatible: strict true');
  t.equal(strictOf(implied(OPEN)), false, 'incompatible: strict false, never left to default');
  t.equal(strictOf(strictTool('f', OPEN)), true, "the caller's true as sent (gamma's 400 is the truthful answer)");
  t.equal(strictOf({ name: 'f', parameters: CLOSED }), undefined, 'not asked: not sent');
  const format = (schema: Json): unknown => {
    const body: Json = gammaChatBody(
      request({
        responseFormat: {
          type: 'json_schema',
          name: 'output',
          schema,
          param: 'output_config.format',
          strict: { param: 'output_config.format', implied: true },
        },
      }),
      GAMMA,
      false,
    );
    return body['response_format'].json_schema.strict;
  };
  t.same([format(CLOSED), format(OPEN)], [true, false], 'a Messages output_config.format likewise');
});
