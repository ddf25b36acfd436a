import { gzipSync } from 'node:zlib';
import { bad, call, chat, html, JSON_TYPE, nested, ok, type CorpusCase } from './cases.js';

/**
 * Named bad inputs of the caller API (/v1) and what the gateway must answer
 * (docs/api-contract.md), run one by one by bad-inputs.test.ts. `{key}`, `{restricted}`, … in a
 * header value stand for the probe gateway's credentials. Fuzz finds are minimised into this table.
 */

/** A body in chunked transfer coding, in two chunks. */
const chunked = (text: string): string => {
  const half = Math.ceil(text.length / 2);
  return [text.slice(0, half), text.slice(half)].map((part) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`).join('') + '0\r\n\r\n';
};

/** A chat call with the valid key and this body. */
const chatCase = (name: string, body: string | Buffer, expect: CorpusCase['expect'], headers: Array<[string, string]> = [JSON_TYPE]): CorpusCase => ({
  name,
  method: 'POST',
  target: '/v1/chat/completions',
  auth: 'key',
  headers,
  body,
  expect,
});

const CHAT: CorpusCase[] = [
  chatCase('a whole chat call (control)', chat(), ok()),
  chatCase('empty body', '', bad(400, 'invalid_json')),
  chatCase('malformed JSON', '{"model": "gamma-5.4", ', bad(400, 'invalid_json')),
  chatCase('JSON null', 'null', bad(400, 'invalid_json')),
  chatCase('JSON array', '[1,2]', bad(400, 'invalid_json')),
  chatCase('JSON string', '"hello"', bad(400, 'invalid_json')),
  // A lone continuation byte inside a string: decoding would turn it into U+FFFD without a word.
  chatCase(
    'a body that is not UTF-8',
    Buffer.concat([Buffer.from('{"model":"gamma-5.4","messages":[{"role":"user","content":"a'), Buffer.from([0x80]), Buffer.from('"}]}')]),
    bad(400, 'invalid_json'),
  ),
  chatCase('a BOM before the JSON', `\uFEFF${chat()}`, bad(400, 'invalid_json')),
  chatCase('NaN literal', '{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"temperature":NaN}', bad(400, 'invalid_json')),
  chatCase('model missing', JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }), bad(400, 'invalid_request', 'model')),
  chatCase('model a number', chat({ model: 5 }), bad(400, 'invalid_request', 'model')),
  chatCase('model an empty string', chat({ model: '' }), bad(400, 'invalid_request', 'model')),
  chatCase('model an object', chat({ model: { id: 'gamma-5.4' } }), bad(400, 'invalid_request', 'model')),
  chatCase('model unknown', chat({ model: 'gpt-17' }), bad(404, 'model_not_found', 'model')),
  chatCase('model with a NUL', chat({ model: 'gamma-5.4\u0000' }), bad(404, 'model_not_found', 'model')),
  chatCase('model 100 KB long', chat({ model: 'x'.repeat(100_000) }), bad(404, 'model_not_found', 'model')),
  chatCase('model alias in odd case and spaces', chat({ model: '  GAMMA-5.4 ' }), ok()),
  chatCase('messages missing', JSON.stringify({ model: 'gamma-5.4' }), bad(400, 'invalid_request', 'messages')),
  chatCase('messages a string', chat({ messages: 'hi' }), bad(400, 'invalid_request', 'messages')),
  chatCase('messages empty', chat({ messages: [] }), bad(400, 'invalid_request', 'messages')),
  chatCase('a message null', chat({ messages: [null] }), bad(400, 'invalid_request', 'messages[0]')),
  chatCase('a message without role', chat({ messages: [{ content: 'x' }] }), bad(400, 'invalid_request', 'messages[0].role')),
  chatCase('an unknown role', chat({ messages: [{ role: 'wizard', content: 'x' }] }), bad(400, 'invalid_request', 'messages[0].role')),
  chatCase('content a number', chat({ messages: [{ role: 'user', content: 42 }] }), bad(400, 'invalid_request', 'messages[0].content')),
  chatCase(
    'content parts of an unknown type (alpha translates)',
    chat({ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: [{ type: 'hologram', hologram: {} }] }] }),
    bad(400, 'invalid_request'),
  ),
  chatCase(
    'content part without a type (alpha translates)',
    chat({ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
    bad(400, 'invalid_request'),
  ),
  chatCase(
    'image part with a non-URL (alpha translates)',
    chat({ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'not a url' } }] }] }),
    bad(400, 'invalid_request'),
  ),
  chatCase(
    'lone surrogates and control characters in content',
    chat({ messages: [{ role: 'user', content: '\ud800 \udfff \u0000 \u001b[31m \u202e' }] }),
    ok(),
  ),
  chatCase('every plane of Unicode in content', chat({ messages: [{ role: 'user', content: 'ü 東 🎉 \u{10FFFF} \u{E0001}' }] }), ok()),
  chatCase('max_tokens negative', chat({ max_tokens: -1 }), bad(400, 'invalid_request', 'max_tokens')),
  chatCase('max_tokens a fraction', chat({ max_tokens: 1.5 }), bad(400, 'invalid_request', 'max_tokens')),
  chatCase('max_tokens a string', chat({ max_tokens: '5' }), bad(400, 'invalid_request', 'max_tokens')),
  chatCase(
    'max_tokens 1e400 (Infinity)',
    '{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"max_tokens":1e400}',
    bad(400, 'invalid_request', 'max_tokens'),
  ),
  chatCase(
    'max_tokens 2^64',
    '{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"max_tokens":18446744073709551616}',
    bad(400, 'invalid_request', 'max_tokens'),
  ),
  chatCase(
    'temperature 1e400',
    '{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"temperature":1e400}',
    bad(400, 'invalid_request', 'temperature'),
  ),
  chatCase('temperature -0', '{"model":"gamma-5.4","messages":[{"role":"user","content":"x [[sim:tokens=2]]"}],"temperature":-0}', ok()),
  chatCase('n zero', chat({ n: 0 }), bad(400, 'invalid_request', 'n')),
  chatCase('n 10000', chat({ n: 10_000 }), bad(400, 'invalid_request', 'n')),
  chatCase('stream "yes"', chat({ stream: 'yes' }), bad(400, 'invalid_request', 'stream')),
  chatCase('stream true', chat({ stream: true }), ok('sse')),
  chatCase('stream_options a number', chat({ stream: true, stream_options: 3 }), bad(400, 'invalid_request', 'stream_options')),
  chatCase('stop with 5 strings', chat({ stop: ['a', 'b', 'c', 'd', 'e'] }), bad(400, 'invalid_request', 'stop')),
  chatCase('tools a string', chat({ tools: 'all of them' }), bad(400, 'invalid_request', 'tools')),
  chatCase('a tool without function', chat({ tools: [{ type: 'function' }] }), bad(400, 'invalid_request', 'tools[0].function')),
  chatCase(
    'a tool with a bad name',
    chat({ tools: [{ type: 'function', function: { name: 'no spaces allowed' } }] }),
    bad(400, 'invalid_request', 'tools[0].function.name'),
  ),
  chatCase(
    'tool_choice naming no tool (alpha translates)',
    chat({ model: 'alpha-sonnet-4.6', tool_choice: { type: 'function', function: { name: 'ghost' } } }),
    bad(400, 'invalid_request'),
  ),
  chatCase('response_format of an unknown type', chat({ response_format: { type: 'yaml' } }), bad(400, 'invalid_request', 'response_format.type')),
  chatCase(
    'a tool call without its answer (alpha translates)',
    chat({
      model: 'alpha-sonnet-4.6',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'user', content: 'y' },
      ],
    }),
    bad(400, 'invalid_request'),
  ),
  chatCase('nesting 100 deep in an unknown field', chat({ extra: JSON.parse(nested(100)) as unknown }), ok()),
  chatCase('nesting 129 deep', chat({ extra: JSON.parse(nested(129)) as unknown }), bad(400, 'invalid_json')),
  chatCase('nesting 100 000 deep', `{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"extra":${nested(100_000)}}`, bad(400, 'invalid_json')),
  chatCase('100 000 messages', chat({ messages: Array.from({ length: 100_000 }, () => ({ role: 'user', content: 'x' })) }), ok()),
  chatCase('duplicate keys (the last wins)', '{"model":"nope","model":"gamma-5.4","messages":[{"role":"user","content":"x [[sim:tokens=2]]"}]}', ok()),
  chatCase('a __proto__ key', '{"model":"gamma-5.4","messages":[{"role":"user","content":"x [[sim:tokens=2]]"}],"__proto__":{"admin":true}}', ok()),
  chatCase('a body over 20 MiB (declared)', Buffer.alloc(21 * 1024 * 1024, 0x20), bad(413, 'payload_too_large')),
];

const HEADERS: CorpusCase[] = [
  chatCase('Content-Type text/plain (the body is read whatever its type)', chat(), ok(), [['Content-Type', 'text/plain']]),
  chatCase('no Content-Type', chat(), ok(), []),
  chatCase('Content-Type multipart/form-data', chat(), ok(), [['Content-Type', 'multipart/form-data; boundary=x']]),
  chatCase('a charset the gateway does not decode (utf-16 label, UTF-8 bytes)', chat(), bad(400, 'invalid_request'), [
    ['Content-Type', 'application/json; charset=utf-16'],
  ]),
  chatCase('charset=UTF-8 in capitals', chat(), ok(), [['Content-Type', 'application/json; charset=UTF-8']]),
  chatCase('gzip body', gzipSync(chat()), ok(), [JSON_TYPE, ['Content-Encoding', 'gzip']]),
  chatCase('gzip claimed, plain body', chat(), bad(400), [JSON_TYPE, ['Content-Encoding', 'gzip']]),
  chatCase('zstd body', chat(), bad(400), [JSON_TYPE, ['Content-Encoding', 'zstd']]),
  chatCase('Content-Encoding identity', chat(), ok(), [JSON_TYPE, ['Content-Encoding', 'identity']]),
  chatCase('a gzip bomb (20 MiB of zeros inflated)', gzipSync(Buffer.alloc(21 * 1024 * 1024)), bad(413, 'payload_too_large'), [
    JSON_TYPE,
    ['Content-Encoding', 'gzip'],
  ]),
  chatCase('Expect: 100-continue', chat(), ok(), [JSON_TYPE, ['Expect', '100-continue']]),
  chatCase('chunked body', chunked(chat()), ok(), [JSON_TYPE, ['Transfer-Encoding', 'chunked']]),
  chatCase('x-gateway-cache-ttl beyond a day', chat(), bad(400, 'invalid_request', 'x-gateway-cache-ttl'), [
    JSON_TYPE,
    ['x-gateway-cache-ttl', '99999999999999999999'],
  ]),
  chatCase('x-gateway-cache-ttl sent twice', chat(), bad(400, 'invalid_request', 'x-gateway-cache-ttl'), [
    JSON_TYPE,
    ['x-gateway-cache-ttl', '5'],
    ['x-gateway-cache-ttl', '5'],
  ]),
  {
    name: 'two Authorization headers, the second another key',
    method: 'POST',
    target: '/v1/chat/completions',
    headers: [JSON_TYPE, ['Authorization', 'Bearer {key}'], ['Authorization', 'Bearer {restricted}']],
    body: chat(),
    expect: bad(401, 'invalid_api_key'),
  },
  {
    name: 'Content-Length and Transfer-Encoding both',
    method: 'POST',
    target: '/v1/chat/completions',
    headers: [JSON_TYPE, ['Authorization', 'Bearer {key}'], ['Content-Length', '5'], ['Transfer-Encoding', 'chunked']],
    body: '0\r\n\r\n',
    // What Node's parser refuses gets the edge's page.
    expect: html(400),
  },
];

/** A chat call with this Authorization (or other credential header). */
const authCase = (name: string, headers: Array<[string, string]>, expect: CorpusCase['expect']): CorpusCase => ({
  name,
  method: 'POST',
  target: '/v1/chat/completions',
  headers: [JSON_TYPE, ...headers],
  body: chat(),
  expect,
});

const AUTH: CorpusCase[] = [
  authCase('no Authorization', [], bad(401, 'invalid_api_key')),
  authCase('Authorization empty', [['Authorization', '']], bad(401, 'invalid_api_key')),
  authCase('Bearer without a token', [['Authorization', 'Bearer']], bad(401, 'invalid_api_key')),
  authCase('Bearer and spaces', [['Authorization', 'Bearer    ']], bad(401, 'invalid_api_key')),
  authCase('Basic scheme', [['Authorization', 'Basic dXNlcjpwYXNz']], bad(401, 'invalid_api_key')),
  authCase('lower-case scheme', [['Authorization', 'bearer {key}']], ok()),
  authCase('tab after Bearer', [['Authorization', 'Bearer\t{key}']], ok()),
  authCase('the key twice in one header', [['Authorization', 'Bearer {key} {key}']], bad(401, 'invalid_api_key')),
  authCase('the key and a comma', [['Authorization', 'Bearer {key}, Bearer {restricted}']], bad(401, 'invalid_api_key')),
  authCase('x-api-key instead', [['x-api-key', '{key}']], bad(401, 'invalid_api_key')),
  authCase('a 10 KB token', [['Authorization', `Bearer sl-${'a'.repeat(10_000)}`]], bad(401, 'invalid_api_key')),
  authCase('a token of non-ASCII bytes', [['Authorization', 'Bearer sl-\u00e9\u00e9\u00e9']], bad(401, 'invalid_api_key')),
  authCase('the admin token as a key', [['Authorization', 'Bearer {admin}']], bad(401, 'invalid_api_key')),
  authCase('a revoked key', [['Authorization', 'Bearer {revoked}']], bad(401, 'invalid_api_key')),
  authCase('a rotated key in its grace', [['Authorization', 'Bearer {rotated}']], ok()),
  authCase('an unknown key', [['Authorization', 'Bearer {unknown}']], bad(401, 'invalid_api_key')),
  authCase('a malformed key', [['Authorization', 'Bearer {malformed}']], bad(401, 'invalid_api_key')),
  authCase('an imported qua- key', [['Authorization', 'Bearer {imported}']], bad(401, 'invalid_api_key')),
  authCase('the allowlisted model with a restricted key', [['Authorization', 'Bearer {restricted}']], ok()),
  {
    ...authCase('a model outside the allowlist', [['Authorization', 'Bearer {restricted}']], bad(403, 'model_not_allowed', 'model')),
    body: chat({ model: 'alpha-sonnet-4.6' }),
  },
  authCase('a key at its ceiling', [['Authorization', 'Bearer {capped}']], bad(402, 'monthly_cap_exceeded')),
  authCase('a key with 1 request a minute, first call', [['Authorization', 'Bearer {limited}']], ok()),
  authCase('a key with 1 request a minute, second call', [['Authorization', 'Bearer {limited}']], bad(429, 'rate_limit_exceeded')),
  { ...authCase('a bad key with a bad body (401 first)', [['Authorization', 'Bearer {unknown}']], bad(401, 'invalid_api_key')), body: '{nope' },
  {
    ...authCase('a bad key with a 21 MiB body (413 first)', [['Authorization', 'Bearer {unknown}']], bad(413, 'payload_too_large')),
    body: Buffer.alloc(21 * 1024 * 1024, 0x20),
  },
];

const PATHS: CorpusCase[] = [
  call('GET on the chat path', 'GET', '/v1/chat/completions', html(405)),
  call('OPTIONS on the chat path', 'OPTIONS', '/v1/chat/completions', html(405)),
  call('OPTIONS on the Responses path', 'OPTIONS', '/v1/responses', html(405)),
  call('OPTIONS on the Messages path', 'OPTIONS', '/v1/messages', html(405)),
  call('OPTIONS on /v1/usage', 'OPTIONS', '/v1/usage', html(405)),
  call('DELETE on /v1/embeddings', 'DELETE', '/v1/embeddings', html(405)),
  call('POST on /v1/usage', 'POST', '/v1/usage', html(405), '{}'),
  call('PUT on /v1/models', 'PUT', '/v1/models', html(405), '{}'),
  call('PATCH on a model', 'PATCH', '/v1/models/gamma-5.4', html(405), '{}'),
  call('an unknown method (refused by the HTTP parser)', 'BREW', '/v1/chat/completions', html(400)),
  // Found by the fuzzer (seed 20261115): an empty request target.
  call('an empty request target', 'POST', '', html(400), chat()),
  call('trailing slash', 'POST', '/v1/chat/completions/', ok(), chat()),
  call('upper-case path', 'POST', '/V1/CHAT/COMPLETIONS', ok(), chat()),
  call('a query string', 'POST', '/v1/chat/completions?x=1&x=%zz&__proto__=1', ok(), chat()),
  call('a path below the chat path', 'POST', '/v1/chat/completions/extra', bad(404, 'not_found'), chat()),
  call('/v1/files', 'POST', '/v1/files', bad(404, 'not_found'), '{}'),
  call('/v2/chat/completions', 'POST', '/v2/chat/completions', bad(404, 'not_found'), chat()),
  call('the root', 'GET', '/', bad(404, 'not_found')),
  call('a double slash', 'POST', '//v1/chat/completions', bad(404, 'not_found'), chat()),
  call('dot segments (not normalised)', 'GET', '/v1/../v1/models', bad(404, 'not_found')),
  call('an encoded slash in a model id', 'GET', '/v1/models/gamma-5.4%2F..%2F..', bad(404, 'model_not_found', 'model')),
  call('a bad percent escape', 'GET', '/v1/models/%zz', html(400)),
  call('a NUL escape in a model id', 'GET', '/v1/models/%00', bad(404, 'model_not_found', 'model')),
  call('an overlong UTF-8 escape', 'GET', '/v1/models/%C0%AF', html(400)),
  call('a 6 KB path', 'GET', `/v1/${'a'.repeat(6000)}`, bad(404, 'not_found')),
  call('an absolute-form target', 'GET', 'http://evil.example/v1/models', ok()),
  call('an asterisk target', 'OPTIONS', '*', bad(404, 'not_found')),
  call('HEAD on the model list', 'HEAD', '/v1/models', ok('empty')),
  call('OPTIONS on /healthz', 'OPTIONS', '/healthz', bad(404, 'not_found'), undefined, null),
  call('OPTIONS on an admin path', 'OPTIONS', '/admin/v1/keys', bad(404, 'not_found'), undefined, 'admin'),
  call('OPTIONS on the model list', 'OPTIONS', '/v1/models', html(405)),
  call('the model list without a key', 'GET', '/v1/models', ok(), undefined, null),
  call('an alias', 'GET', '/v1/models/GAMMA-5.4', ok()),
  call('usage with the key', 'GET', '/v1/usage', ok()),
  call('usage with junk in the query', 'GET', '/v1/usage?days=-1&key=../../', ok()),
  call('usage without a key', 'GET', '/v1/usage', bad(401, 'invalid_api_key'), undefined, null),
];

const ENDPOINTS: CorpusCase[] = [
  call('legacy completion (control)', 'POST', '/v1/completions', ok(), JSON.stringify({ model: 'gamma-5.4', prompt: 'x', max_tokens: 2 })),
  call('legacy prompt an object', 'POST', '/v1/completions', bad(400, 'invalid_request', 'prompt'), JSON.stringify({ model: 'gamma-5.4', prompt: {} })),
  call(
    'legacy echo (alpha translates)',
    'POST',
    '/v1/completions',
    bad(400, 'invalid_request', 'echo'),
    JSON.stringify({ model: 'alpha-sonnet-4.6', prompt: 'x', echo: true }),
  ),
  call(
    'legacy prompt of token arrays (alpha translates)',
    'POST',
    '/v1/completions',
    bad(400, 'invalid_request'),
    JSON.stringify({ model: 'alpha-sonnet-4.6', prompt: [[1, 2, 3]] }),
  ),
  call('embeddings (control)', 'POST', '/v1/embeddings', ok(), JSON.stringify({ model: 'gamma-5.4', input: 'x' })),
  call('embeddings input a number', 'POST', '/v1/embeddings', bad(400, 'invalid_request', 'input'), JSON.stringify({ model: 'gamma-5.4', input: 5 })),
  call('embeddings input empty', 'POST', '/v1/embeddings', bad(400, 'invalid_request', 'input'), JSON.stringify({ model: 'gamma-5.4', input: [] })),
  call(
    'embeddings of 3000 inputs',
    'POST',
    '/v1/embeddings',
    bad(400, 'invalid_request', 'input'),
    JSON.stringify({ model: 'gamma-5.4', input: Array.from({ length: 3000 }, () => 'x') }),
  ),
  call(
    'embeddings dimensions negative',
    'POST',
    '/v1/embeddings',
    bad(400, 'invalid_request', 'dimensions'),
    JSON.stringify({ model: 'gamma-5.4', input: 'x', dimensions: -5 }),
  ),
  call(
    'embeddings in hex',
    'POST',
    '/v1/embeddings',
    bad(400, 'invalid_request', 'encoding_format'),
    JSON.stringify({ model: 'gamma-5.4', input: 'x', encoding_format: 'hex' }),
  ),
  call(
    'embeddings from a model without them',
    'POST',
    '/v1/embeddings',
    bad(400, 'invalid_request', 'model'),
    JSON.stringify({ model: 'alpha-sonnet-4.6', input: 'x' }),
  ),
];

export const API_CORPUS: readonly CorpusCase[] = [...CHAT, ...HEADERS, ...AUTH, ...PATHS, ...ENDPOINTS];
