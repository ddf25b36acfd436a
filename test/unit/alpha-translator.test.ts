import t from 'tap';
import type { GatewayError } from '../../src/http/errors.js';
import { AlphaTranslator } from '../../plugins/vendor-alpha/translator.js';
import { fixedIds, frames, makeCall, runStream, thrown, type CallOptions } from '../helpers/translate.js';

/**
 * Every row of the alpha mapping tables (docs/vendor-formats.md: #request-mapping, #alpha-response, #alpha-finish-reasons, #alpha-usage, #alpha-stream-events, #alpha-errors), each direction, with
 * literal JSON and SSE fixtures. Model alpha-haiku-4.5 (upstream name = id, max output 64000).
 */

const MODEL = 'alpha-haiku-4.5';
const translator = (body: string, options: Partial<CallOptions> = {}): AlphaTranslator =>
  new AlphaTranslator(makeCall(JSON.parse(body), { model: MODEL, ...options }), 'alpha-key');
const upstreamBody = (body: string, options: Partial<CallOptions> = {}): unknown => JSON.parse(translator(body, options).request().body.toString());

t.test('request mapping, reference → alpha', async (t) => {
  const request = translator('{"model":"alpha-haiku-4-5","messages":[{"role":"user","content":"Hi"}]}').request();
  t.equal(request.path, 'v1/messages', 'URL');
  t.same(
    request.headers,
    { 'content-type': 'application/json', accept: 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'alpha-key' },
    'auth and version headers',
  );

  const rows: Array<[string, string, string]> = [
    [
      'model (alias → upstream name), user string, max_tokens default from the catalogue',
      '{"model":"alpha-haiku-4-5","messages":[{"role":"user","content":"Hi"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}',
    ],
    [
      'system and developer messages hoisted, in order, into top-level system',
      '{"messages":[{"role":"system","content":"A"},{"role":"user","content":"Hi"},{"role":"developer","content":[{"type":"text","text":"B"}]}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}],"system":[{"type":"text","text":"A"},{"type":"text","text":"B"}]}',
    ],
    [
      'user text parts → text blocks, empty text dropped, same-role turns merged',
      '{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":""}]},{"role":"user","content":"b"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}',
    ],
    [
      'image_url data URL → base64 image; https → url image; detail auto asks nothing',
      '{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo=","detail":"auto"}},{"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}}]}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]}]}',
    ],
    [
      'assistant content → text block; null content omitted; tool_calls → tool_use in the same message ("" → {}); tool messages → one user message, results first',
      '{"tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"Go"},{"role":"assistant","content":"Checking.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\\"x\\":1}"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":""}}]},{"role":"tool","tool_call_id":"call_1","content":"one"},{"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"two"}]},{"role":"user","content":"And?"},{"role":"assistant","content":null}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"Go"}]},{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"call_1","name":"f","input":{"x":1}},{"type":"tool_use","id":"call_2","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"one"},{"type":"tool_result","tool_use_id":"call_2","content":"two"},{"type":"text","text":"And?"}]}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}]}',
    ],
    [
      'tool ids with foreign characters sanitised the same way on call and result; a leading assistant turn gets a user turn first',
      '{"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}],"messages":[{"role":"assistant","tool_calls":[{"id":"fn:1.a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"fn:1.a","content":"ok"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"."}]},{"role":"assistant","content":[{"type":"tool_use","id":"fn_1_a","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"fn_1_a","content":"ok"}]}],"tools":[{"name":"f","description":"d","input_schema":{"type":"object"}}]}',
    ],
    [
      'tool_choice auto',
      '{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"auto","messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"auto"}}',
    ],
    [
      'tool_choice none',
      '{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"none","messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"none"}}',
    ],
    [
      'tool_choice required → any',
      '{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required","messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"any"}}',
    ],
    [
      'named function → tool',
      '{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"f"}},"messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"tool","name":"f"}}',
    ],
    [
      'parallel_tool_calls false → disable_parallel_tool_use (auto created)',
      '{"tools":[{"type":"function","function":{"name":"f"}}],"parallel_tool_calls":false,"messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"auto","disable_parallel_tool_use":true}}',
    ],
    [
      'response_format json_object → forced tool with any object',
      '{"response_format":{"type":"json_object"},"messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"tools":[{"name":"json_response","description":"Reply with the JSON value that answers the request.","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"json_response"}}',
    ],
    [
      'response_format json_schema → output_config.format with the schema closed (the name is not sent)',
      '{"response_format":{"type":"json_schema","json_schema":{"name":"c","schema":{"type":"object","properties":{"a":{"type":"string"}}}}},"messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}}}}',
    ],
    [
      "a recursive json_schema → the forced tool with the schema, its description the format's",
      '{"response_format":{"type":"json_schema","json_schema":{"name":"c","description":"A tree.","schema":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}}},"messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"tools":[{"name":"json_response","description":"A tree.","input_schema":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}}],"tool_choice":{"type":"tool","name":"json_response"}}',
    ],
    [
      "JSON mode beside the caller's tools: one of them or the JSON tool",
      '{"tools":[{"type":"function","function":{"name":"f"}}],"response_format":{"type":"json_object"},"messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}},{"name":"json_response","description":"Reply with the JSON value that answers the request.","input_schema":{"type":"object"}}],"tool_choice":{"type":"any"}}',
    ],
    [
      'stop string → stop_sequences array; max_completion_tokens preferred over max_tokens; temperature, top_p; user → metadata.user_id; zero penalties and null seed ask nothing',
      '{"stop":"END","max_tokens":50,"max_completion_tokens":20,"temperature":0.5,"top_p":0.9,"user":"u-1","seed":null,"presence_penalty":0,"frequency_penalty":0,"messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":20,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"stop_sequences":["END"],"temperature":0.5,"top_p":0.9,"metadata":{"user_id":"u-1"}}',
    ],
    [
      'max_tokens alone',
      '{"max_tokens":50,"stop":["a","b"],"messages":[{"role":"user","content":"x"}]}',
      '{"model":"alpha-haiku-4.5","max_tokens":50,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"stop_sequences":["a","b"]}',
    ],
  ];
  for (const [label, reference, alpha] of rows) t.same(upstreamBody(reference), JSON.parse(alpha), label);

  t.same(
    upstreamBody('{"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}', { stream: true, includeUsage: true }),
    JSON.parse('{"model":"alpha-haiku-4.5","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"stream":true}'),
    'stream → stream:true; stream_options stays in the gateway',
  );
  t.equal(translator('{"messages":[{"role":"user","content":"x"}]}', { stream: true }).request().headers['accept'], 'text/event-stream');
  t.same(
    upstreamBody('{"model":"alpha-haiku-4.5","prompt":"Once","max_tokens":5}', { endpoint: 'completions' }),
    JSON.parse('{"model":"alpha-haiku-4.5","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"Once"}]}]}'),
    'a legacy completion request becomes one user message',
  );

  const refusals: Array<[string, string, string]> = [
    ['n > 1 is refused', '{"n":2,"messages":[{"role":"user","content":"x"}]}', 'n'],
    ["temperature above alpha's 0–1 is refused, not clamped", '{"temperature":1.2,"messages":[{"role":"user","content":"x"}]}', 'temperature'],
    ['whitespace-only stop is refused', '{"stop":[" "],"messages":[{"role":"user","content":"x"}]}', 'stop'],
    ['logprobs are unsupported', '{"logprobs":true,"messages":[{"role":"user","content":"x"}]}', 'logprobs'],
    ['seed cannot be honoured', '{"seed":7,"messages":[{"role":"user","content":"x"}]}', 'seed'],
    ['presence_penalty cannot be honoured', '{"presence_penalty":0.5,"messages":[{"role":"user","content":"x"}]}', 'presence_penalty'],
    ['frequency_penalty cannot be honoured', '{"frequency_penalty":-1,"messages":[{"role":"user","content":"x"}]}', 'frequency_penalty'],
    [
      'only jpeg/png/gif/webp',
      '{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/bmp;base64,Qk0="}}]}]}',
      'messages[0].content[0]',
    ],
    [
      'arguments must be JSON',
      '{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{oops"}}]},{"role":"tool","tool_call_id":"c","content":"r"}]}',
      'messages[1].tool_calls[0].function.arguments',
    ],
    [
      'a tool message must answer an earlier call',
      '{"messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"nope","content":"r"}]}',
      'messages[1].tool_call_id',
    ],
    ['audio parts are refused', '{"messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]}]}', 'messages[0].content[0]'],
    [
      'json_schema root must be an object',
      '{"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"array"}}},"messages":[{"role":"user","content":"x"}]}',
      'response_format.json_schema.schema',
    ],
    ['embeddings: alpha has none', '{"model":"alpha-haiku-4.5","input":"x"}', 'model'],
  ];
  for (const [label, reference, param] of refusals) {
    const endpoint = param === 'model' ? 'embeddings' : 'chat.completions';
    t.match(
      thrown(() => translator(reference, { endpoint }).request()),
      { status: 400, param },
      label,
    );
  }
});

const respond = (
  alpha: string,
  options: Partial<CallOptions> = {},
  body = '{"messages":[{"role":"user","content":"x"}]}',
): { body: unknown; usage: unknown } => {
  const tr = translator(body, options);
  tr.request();
  const out = tr.response(Buffer.from(alpha));
  return { body: JSON.parse(fixedIds(String(out.body))), usage: out.usage };
};

t.test('response mapping, alpha → reference', async (t) => {
  const message = (content: string, stopReason: string, usage = '{"input_tokens":512,"output_tokens":61}') =>
    `{"id":"msg_01","type":"message","role":"assistant","model":"claude-x","content":${content},"stop_reason":"${stopReason}","stop_sequence":null,"usage":${usage}}`;

  t.same(
    respond(
      message(
        '[{"type":"text","text":"Let me "},{"type":"text","text":"convert."},{"type":"tool_use","id":"toolu_01Cd","name":"get_weather","input":{"city":"Oslo"}}]',
        'tool_use',
        '{"input_tokens":512,"output_tokens":61,"cache_creation_input_tokens":8,"cache_read_input_tokens":30}',
      ),
    ),
    {
      body: JSON.parse(
        '{"id":"chatcmpl-ID","object":"chat.completion","created":1767225600,"model":"alpha-haiku-4.5","choices":[{"index":0,"message":{"role":"assistant","content":"Let me convert.","refusal":null,"tool_calls":[{"id":"toolu_01Cd","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Oslo\\"}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":550,"completion_tokens":61,"total_tokens":611,"prompt_tokens_details":{"cached_tokens":30},"cache_creation_input_tokens":8}}',
      ),
      usage: { promptTokens: 550, completionTokens: 61, cachedTokens: 30, cacheWriteTokens: 8 },
    },
    'text blocks concatenated, tool_use → tool_calls (id kept), prompt = input + cache reads + cache writes, cached = reads, canonical model, created = admission',
  );
  const only = respond(message('[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]', 'tool_use')).body as {
    choices: Array<{ message: { content: unknown } }>;
  };
  t.equal(only.choices[0]?.message.content, null, 'content null when there are only tool calls');

  const finishes: Array<[string, string]> = [
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'stop'],
    ['model_context_window_exceeded', 'length'],
  ];
  for (const [stopReason, finish] of finishes) {
    const content = stopReason === 'tool_use' ? '[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]' : '[{"type":"text","text":"x"}]';
    const out = respond(message(content, stopReason)).body as { choices: Array<{ finish_reason: string }> };
    t.equal(out.choices[0]?.finish_reason, finish, `stop_reason ${stopReason} → ${finish}`);
  }
  const json = respond(
    message('[{"type":"tool_use","id":"toolu_1","name":"json_response","input":{"city":"Oslo"}}]', 'tool_use'),
    {},
    '{"response_format":{"type":"json_object"},"messages":[{"role":"user","content":"x"}]}',
  ).body as {
    choices: Array<{ finish_reason: string; message: { content: string; tool_calls?: unknown } }>;
  };
  t.same(
    [json.choices[0]?.message.content, json.choices[0]?.finish_reason, json.choices[0]?.message.tool_calls],
    ['{"city":"Oslo"}', 'stop', undefined],
    'forced-JSON tool_use → content, finish stop',
  );

  const legacy = respond(
    message('[{"type":"text","text":"Hello"}]', 'max_tokens', '{"input_tokens":2,"output_tokens":1}'),
    { endpoint: 'completions' },
    '{"model":"alpha-haiku-4.5","prompt":"Hi"}',
  );
  t.same(
    legacy.body,
    JSON.parse(
      '{"id":"cmpl-ID","object":"text_completion","created":1767225600,"model":"alpha-haiku-4.5","choices":[{"text":"Hello","index":0,"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":2,"completion_tokens":1,"total_tokens":3}}',
    ),
    'legacy: text_completion with cmpl- id',
  );

  t.match(
    thrown(() => respond('not json')),
    { status: 502 },
    'garbage → 502',
  );
  t.match(
    thrown(() => respond('{"type":"error"}')),
    { status: 502 },
    'not a message → 502',
  );
});

/** The alpha stream example of docs/vendor-formats.md#alpha-stream-events, literally. */
const ALPHA_STREAM = `event: message_start
data: {"type":"message_start","message":{"id":"msg_01Qw8Kc","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":512,"output_tokens":1,"cache_read_input_tokens":12}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type":"ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me convert"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hmm"}}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01Cd","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Oslo\\", \\"unit\\": \\"f\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_02Ef","name":"get_time","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{}"}}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":61}}

event: message_stop
data: {"type":"message_stop"}

`;

const CHUNK = '"id":"chatcmpl-ID","object":"chat.completion.chunk","created":1767225600,"model":"alpha-haiku-4.5"';

t.test('streaming, alpha events → reference chunks', async (t) => {
  const tr = translator('{"messages":[{"role":"user","content":"x"}]}', { stream: true, includeUsage: true });
  const out = fixedIds(runStream(tr, ALPHA_STREAM));
  const expected = `data: {${CHUNK},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"content":"Let me convert"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"reasoning_content":"hmm"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"toolu_01Cd","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\": \\"Oslo\\", \\"unit\\": \\"f\\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"toolu_02Ef","type":"function","function":{"name":"get_time","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}

data: {${CHUNK},"choices":[],"usage":{"prompt_tokens":524,"completion_tokens":61,"total_tokens":585,"prompt_tokens_details":{"cached_tokens":12}}}

`;
  t.equal(
    out,
    expected,
    'message_start → role; text_delta → content; thinking_delta → reasoning_content; ping and block stops dropped; tool_use → call with its own index; input_json_delta → arguments (empty skipped); message_delta → finish; message_stop → usage chunk',
  );
  t.same(tr.stream().usage, null, 'a fresh stream has no usage');

  const quiet = translator('{"messages":[{"role":"user","content":"x"}]}', { stream: true });
  const noUsage = frames(runStream(quiet, ALPHA_STREAM)) as Array<Record<string, unknown>>;
  t.ok(
    noUsage.every((chunk) => !('usage' in chunk)),
    'without include_usage: no usage field and no usage chunk',
  );
  t.equal(noUsage.length, 8);

  const json = translator('{"response_format":{"type":"json_object"},"messages":[{"role":"user","content":"x"}]}', { stream: true });
  json.request();
  const jsonOut = frames(
    runStream(
      json,
      `event: message_start
data: {"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"json_response","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}

event: message_stop
data: {"type":"message_stop"}

`,
    ),
  ) as Array<{ choices: Array<{ delta: { content?: string }; finish_reason: string | null }> }>;
  t.same(
    jsonOut.map((c) => c.choices[0]?.delta.content ?? null),
    ['', '{"a":', '1}', null],
    "JSON mode: the forced tool's fragments are content",
  );
  t.equal(jsonOut.at(-1)?.choices[0]?.finish_reason, 'stop');

  const broken = translator('{"messages":[{"role":"user","content":"x"}]}', { stream: true }).stream();
  broken.event({ event: 'message_start', data: '{"type":"message_start","message":{"usage":{"input_tokens":7,"output_tokens":1}}}' });
  broken.event({ event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}' });
  t.same(
    broken.usage,
    { promptTokens: 7, completionTokens: 0, estimated: true },
    'before message_delta the provisional output count is not trusted: the relayed deltas stand in, as an estimate',
  );
  t.match(
    thrown(() => broken.end()),
    { status: 502 },
    'a stream that ends before message_stop is an error, not a success',
  );
  const error = thrown(() =>
    broken.event({ event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' }),
  ) as GatewayError;
  t.same(
    error.toEnvelope(),
    { error: { message: 'The alpha upstream failed mid-stream: Overloaded', type: 'unavailable', code: 'service_unavailable', param: null } },
    'event: error → our envelope',
  );
  t.match(
    thrown(() => broken.event({ event: 'error', data: '{"type":"error","error":{"type":"api_error","message":"boom"}}' })),
    { status: 502 },
  );
  t.match(
    thrown(() => broken.event({ data: 'garbage' })),
    { status: 502 },
  );

  const legacy = translator('{"model":"alpha-haiku-4.5","prompt":"x","stream":true}', { endpoint: 'completions', stream: true });
  t.same(
    frames(
      fixedIds(
        runStream(
          legacy,
          ALPHA_STREAM.split('event: content_block_start\ndata: {"type":"content_block_start","index":1')[0] +
            'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
        ),
      ),
    ),
    [
      JSON.parse(
        '{"id":"cmpl-ID","object":"text_completion","created":1767225600,"model":"alpha-haiku-4.5","choices":[{"text":"Let me convert","index":0,"logprobs":null,"finish_reason":null}]}',
      ),
      JSON.parse(
        '{"id":"cmpl-ID","object":"text_completion","created":1767225600,"model":"alpha-haiku-4.5","choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"stop"}]}',
      ),
    ],
    'legacy stream: text_completion chunks, no role chunk',
  );
});

t.test('errors, alpha → our envelope', async (t) => {
  const rows: Array<[number, string, number, string, string]> = [
    [400, 'invalid_request_error', 400, 'invalid_request', 'invalid_request'],
    [401, 'authentication_error', 502, 'upstream_error', 'bad_gateway'],
    [402, 'billing_error', 502, 'upstream_error', 'bad_gateway'],
    [403, 'permission_error', 502, 'upstream_error', 'bad_gateway'],
    [404, 'not_found_error', 404, 'not_found', 'model_not_found'],
    [413, 'request_too_large', 413, 'payload_too_large', 'payload_too_large'],
    [413, 'invalid_request_error', 413, 'payload_too_large', 'payload_too_large'],
    [429, 'rate_limit_error', 429, 'rate_limited', 'rate_limit_exceeded'],
    [500, 'api_error', 502, 'upstream_error', 'bad_gateway'],
    [503, 'api_error', 503, 'unavailable', 'service_unavailable'],
    [500, 'overloaded_error', 503, 'unavailable', 'service_unavailable'],
    [529, 'overloaded_error', 503, 'unavailable', 'service_unavailable'],
    [504, 'timeout_error', 504, 'upstream_timeout', 'upstream_timeout'],
  ];
  const tr = translator('{"messages":[{"role":"user","content":"x"}]}');
  for (const [status, type, ours, ourType, code] of rows) {
    const error = tr.error(
      status,
      { 'retry-after': '7' },
      Buffer.from(`{"type":"error","error":{"type":"${type}","message":"vendor says ${type}"},"request_id":"req_1"}`),
    );
    t.equal(error.status, ours, `${status} ${type} → ${ours}`);
    t.equal(error.type, ourType);
    t.equal(error.code, code);
    if (status >= 401 && status <= 403) {
      // Our own credential or account: vendors echo the key they were sent, so nothing of theirs is relayed.
      t.equal(error.message, "The alpha upstream refused the gateway's own credentials or account. This is a gateway configuration problem, not your key.");
    } else {
      t.match(error.message, `vendor says ${type}`, "the vendor's message is kept");
    }
    t.same(error.headers, { 'retry-after': '7' }, 'Retry-After passes through');
  }
  const limited = (headers: Record<string, string>): unknown =>
    tr.error(429, headers, Buffer.from('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}')).headers;
  t.same(limited({}), { 'retry-after': '1' }, 'a 429 that names no wait says to come back in a second');
  t.same(limited({ 'retry-after-ms': '2500' }), { 'retry-after-ms': '2500', 'retry-after': '3' }, "or after the upstream's retry-after-ms, in whole seconds");
  t.same(tr.error(500, {}, Buffer.from('{}')).headers, {}, 'no wait is made up for other statuses');
  const long = tr.error(
    400,
    {},
    Buffer.from('{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}'),
  );
  t.equal(long.code, 'context_length_exceeded');
  const garbage = tr.error(502, {}, Buffer.from('<html>Bad Gateway</html>'));
  t.same([garbage.status, garbage.message], [502, 'The alpha upstream answered 502 without a readable error message.'], 'non-JSON garbage → 502');
});
