import { gzipSync } from 'node:zlib';
import type { Credential } from '../helpers/probe-gateway.js';
import { CORE_DEFECTS } from './core-defects.js';

/**
 * Named bad inputs and what the gateway must answer (docs/api-contract.md), run one by one by
 * bad-inputs.test.ts. `{key}`, `{admin}`, … in a header value stand for the probe gateway's
 * credentials. A case with `todo` is a known defect in the core, named there, that another change
 * owns; its check is a tap todo until then. Fuzz finds are minimised into this table.
 */

/** How the answer's body must look: our envelope, an HTML page, a JSON success, an SSE stream, plain text (metrics), nothing (HEAD). */
export type BodyKind = 'envelope' | 'html' | 'json' | 'sse' | 'text' | 'empty';

export interface CorpusCase {
  name: string;
  method: string;
  target: string;
  /** The credential sent as `Authorization: Bearer …` (none if absent). */
  auth?: Credential;
  headers?: Array<[string, string]>;
  body?: string | Buffer;
  expect: { status: number; body: BodyKind; code?: string; param?: string | null };
  todo?: string;
}

const chat = (extra: Record<string, unknown> = {}): string => JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi [[sim:tokens=2]]' }], ...extra });
const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** A body in chunked transfer coding, in two chunks. */
const chunked = (text: string): string => {
  const half = Math.ceil(text.length / 2);
  return [text.slice(0, half), text.slice(half)].map((part) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`).join('') + '0\r\n\r\n';
};

const bad = (status: number, code?: string, param?: string | null): CorpusCase['expect'] => ({
  status,
  body: 'envelope',
  ...(code ? { code } : {}),
  ...(param !== undefined ? { param } : {}),
});
const ok = (body: BodyKind = 'json'): CorpusCase['expect'] => ({ status: 200, body });
const html = (status: number): CorpusCase['expect'] => ({ status, body: 'html' });

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
  chatCase('content parts of an unknown type (alpha translates)', chat({ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: [{ type: 'hologram', hologram: {} }] }] }), bad(400, 'invalid_request')),
  chatCase('content part without a type (alpha translates)', chat({ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: [{ text: 'x' }] }] }), bad(400, 'invalid_request')),
  chatCase('image part with a non-URL (alpha translates)', chat({ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'not a url' } }] }] }), bad(400, 'invalid_request')),
  chatCase('lone surrogates and control characters in content', chat({ messages: [{ role: 'user', content: '\ud800 \udfff \u0000 \u001b[31m \u202e' }] }), ok()),
  chatCase('every plane of Unicode in content', chat({ messages: [{ role: 'user', content: 'ü 東 🎉 \u{10FFFF} \u{E0001}' }] }), ok()),
  chatCase('max_tokens negative', chat({ max_tokens: -1 }), bad(400, 'invalid_request', 'max_tokens')),
  chatCase('max_tokens a fraction', chat({ max_tokens: 1.5 }), bad(400, 'invalid_request', 'max_tokens')),
  chatCase('max_tokens a string', chat({ max_tokens: '5' }), bad(400, 'invalid_request', 'max_tokens')),
  chatCase('max_tokens 1e400 (Infinity)', '{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"max_tokens":1e400}', bad(400, 'invalid_request', 'max_tokens')),
  chatCase('max_tokens 2^64', '{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"max_tokens":18446744073709551616}', bad(400, 'invalid_request', 'max_tokens')),
  chatCase('temperature 1e400', '{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"temperature":1e400}', bad(400, 'invalid_request', 'temperature')),
  chatCase('temperature -0', '{"model":"gamma-5.4","messages":[{"role":"user","content":"x [[sim:tokens=2]]"}],"temperature":-0}', ok()),
  chatCase('n zero', chat({ n: 0 }), bad(400, 'invalid_request', 'n')),
  chatCase('n 10000', chat({ n: 10_000 }), bad(400, 'invalid_request', 'n')),
  chatCase('stream "yes"', chat({ stream: 'yes' }), bad(400, 'invalid_request', 'stream')),
  chatCase('stream true', chat({ stream: true }), ok('sse')),
  chatCase('stream_options a number', chat({ stream: true, stream_options: 3 }), bad(400, 'invalid_request', 'stream_options')),
  chatCase('stop with 5 strings', chat({ stop: ['a', 'b', 'c', 'd', 'e'] }), bad(400, 'invalid_request', 'stop')),
  chatCase('tools a string', chat({ tools: 'all of them' }), bad(400, 'invalid_request', 'tools')),
  chatCase('a tool without function', chat({ tools: [{ type: 'function' }] }), bad(400, 'invalid_request', 'tools[0].function')),
  chatCase('a tool with a bad name', chat({ tools: [{ type: 'function', function: { name: 'no spaces allowed' } }] }), bad(400, 'invalid_request', 'tools[0].function.name')),
  chatCase('tool_choice naming no tool (alpha translates)', chat({ model: 'alpha-sonnet-4.6', tool_choice: { type: 'function', function: { name: 'ghost' } } }), bad(400, 'invalid_request')),
  chatCase('response_format of an unknown type', chat({ response_format: { type: 'yaml' } }), bad(400, 'invalid_request', 'response_format.type')),
  chatCase('a tool call without its answer (alpha translates)', chat({ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'user', content: 'y' }] }), bad(400, 'invalid_request')),
  chatCase('nesting 100 deep in an unknown field', chat({ extra: JSON.parse(nested(100)) as unknown }), ok()),
  chatCase('nesting 129 deep', chat({ extra: JSON.parse(nested(129)) as unknown }), bad(400, 'invalid_json')),
  chatCase('nesting 100 000 deep', `{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"extra":${nested(100_000)}}`, bad(400, 'invalid_json')),
  chatCase('100 000 messages', chat({ messages: Array.from({ length: 100_000 }, () => ({ role: 'user', content: 'x' })) }), ok()),
  chatCase('duplicate keys (the last wins)', '{"model":"nope","model":"gamma-5.4","messages":[{"role":"user","content":"x [[sim:tokens=2]]"}]}', ok()),
  chatCase('a __proto__ key', '{"model":"gamma-5.4","messages":[{"role":"user","content":"x [[sim:tokens=2]]"}],"__proto__":{"admin":true}}', ok()),
  { ...chatCase('a body over 20 MiB (declared)', Buffer.alloc(21 * 1024 * 1024, 0x20), bad(413, 'payload_too_large')), todo: CORE_DEFECTS.earlyRefusalReset },
];

const HEADERS: CorpusCase[] = [
  chatCase('Content-Type text/plain (the body is read whatever its type)', chat(), ok(), [['Content-Type', 'text/plain']]),
  chatCase('no Content-Type', chat(), ok(), []),
  chatCase('Content-Type multipart/form-data', chat(), ok(), [['Content-Type', 'multipart/form-data; boundary=x']]),
  {
    ...chatCase('a charset the gateway does not decode (utf-16 label, UTF-8 bytes)', chat(), bad(400), [['Content-Type', 'application/json; charset=utf-16']]),
    todo: CORE_DEFECTS.charsetIgnored,
  },
  chatCase('gzip body', gzipSync(chat()), ok(), [JSON_TYPE, ['Content-Encoding', 'gzip']]),
  chatCase('gzip claimed, plain body', chat(), bad(400), [JSON_TYPE, ['Content-Encoding', 'gzip']]),
  chatCase('zstd body', chat(), bad(400), [JSON_TYPE, ['Content-Encoding', 'zstd']]),
  chatCase('Content-Encoding identity', chat(), ok(), [JSON_TYPE, ['Content-Encoding', 'identity']]),
  chatCase('a gzip bomb (20 MiB of zeros inflated)', gzipSync(Buffer.alloc(21 * 1024 * 1024)), bad(413, 'payload_too_large'), [JSON_TYPE, ['Content-Encoding', 'gzip']]),
  chatCase('Expect: 100-continue', chat(), ok(), [JSON_TYPE, ['Expect', '100-continue']]),
  chatCase('chunked body', chunked(chat()), ok(), [JSON_TYPE, ['Transfer-Encoding', 'chunked']]),
  {
    name: 'two Authorization headers, the second another key',
    method: 'POST',
    target: '/v1/chat/completions',
    headers: [JSON_TYPE, ['Authorization', 'Bearer {key}'], ['Authorization', 'Bearer {restricted}']],
    body: chat(),
    expect: bad(401, 'invalid_api_key'),
    todo: CORE_DEFECTS.doubleAuthorization,
  },
  {
    name: 'Content-Length and Transfer-Encoding both',
    method: 'POST',
    target: '/v1/chat/completions',
    headers: [JSON_TYPE, ['Authorization', 'Bearer {key}'], ['Content-Length', '5'], ['Transfer-Encoding', 'chunked']],
    body: '0\r\n\r\n',
    expect: bad(400),
    todo: CORE_DEFECTS.parserAnswer,
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
  { ...authCase('a model outside the allowlist', [['Authorization', 'Bearer {restricted}']], bad(403, 'model_not_allowed', 'model')), body: chat({ model: 'alpha-sonnet-4.6' }) },
  authCase('a key at its ceiling', [['Authorization', 'Bearer {capped}']], bad(402, 'monthly_cap_exceeded')),
  authCase('a key with 1 request a minute, first call', [['Authorization', 'Bearer {limited}']], ok()),
  authCase('a key with 1 request a minute, second call', [['Authorization', 'Bearer {limited}']], bad(429, 'rate_limit_exceeded')),
  { ...authCase('a bad key with a bad body (401 first)', [['Authorization', 'Bearer {unknown}']], bad(401, 'invalid_api_key')), body: '{nope' },
  { ...authCase('a bad key with a 21 MiB body (413 first)', [['Authorization', 'Bearer {unknown}']], bad(413, 'payload_too_large')), body: Buffer.alloc(21 * 1024 * 1024, 0x20), todo: CORE_DEFECTS.earlyRefusalReset },
];

/** Any method and target, with the valid key. */
const call = (name: string, method: string, target: string, expect: CorpusCase['expect'], body?: string, auth: Credential | null = 'key'): CorpusCase => ({
  name,
  method,
  target,
  ...(auth ? { auth } : {}),
  headers: [JSON_TYPE],
  ...(body !== undefined ? { body } : {}),
  expect,
});

const PATHS: CorpusCase[] = [
  call('GET on the chat path', 'GET', '/v1/chat/completions', html(405)),
  call('OPTIONS on the chat path', 'OPTIONS', '/v1/chat/completions', html(405)),
  call('DELETE on /v1/embeddings', 'DELETE', '/v1/embeddings', html(405)),
  call('POST on /v1/usage', 'POST', '/v1/usage', html(405), '{}'),
  call('PUT on /v1/models', 'PUT', '/v1/models', html(405), '{}'),
  call('PATCH on a model', 'PATCH', '/v1/models/gamma-5.4', html(405), '{}'),
  { ...call('an unknown method', 'BREW', '/v1/chat/completions', bad(400)), todo: CORE_DEFECTS.parserAnswer },
  // Found by the fuzzer (seed 20261115): an empty request target.
  { ...call('an empty request target', 'POST', '', bad(400), chat()), todo: CORE_DEFECTS.parserAnswer },
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
  { ...call('OPTIONS on /healthz', 'OPTIONS', '/healthz', bad(404, 'not_found'), undefined, null), todo: CORE_DEFECTS.automaticOptions },
  { ...call('OPTIONS on an admin path', 'OPTIONS', '/admin/v1/keys', bad(404, 'not_found'), undefined, 'admin'), todo: CORE_DEFECTS.automaticOptions },
  call('the model list without a key', 'GET', '/v1/models', ok(), undefined, null),
  call('an alias', 'GET', '/v1/models/GAMMA-5.4', ok()),
  call('usage with the key', 'GET', '/v1/usage', ok()),
  call('usage with junk in the query', 'GET', '/v1/usage?days=-1&key=../../', ok()),
  call('usage without a key', 'GET', '/v1/usage', bad(401, 'invalid_api_key'), undefined, null),
];

const ENDPOINTS: CorpusCase[] = [
  call('legacy completion (control)', 'POST', '/v1/completions', ok(), JSON.stringify({ model: 'gamma-5.4', prompt: 'x', max_tokens: 2 })),
  call('legacy prompt an object', 'POST', '/v1/completions', bad(400, 'invalid_request', 'prompt'), JSON.stringify({ model: 'gamma-5.4', prompt: {} })),
  call('legacy echo (alpha translates)', 'POST', '/v1/completions', bad(400, 'invalid_request', 'echo'), JSON.stringify({ model: 'alpha-sonnet-4.6', prompt: 'x', echo: true })),
  call('legacy prompt of token arrays (alpha translates)', 'POST', '/v1/completions', bad(400, 'invalid_request'), JSON.stringify({ model: 'alpha-sonnet-4.6', prompt: [[1, 2, 3]] })),
  call('embeddings (control)', 'POST', '/v1/embeddings', ok(), JSON.stringify({ model: 'gamma-5.4', input: 'x' })),
  call('embeddings input a number', 'POST', '/v1/embeddings', bad(400, 'invalid_request', 'input'), JSON.stringify({ model: 'gamma-5.4', input: 5 })),
  call('embeddings input empty', 'POST', '/v1/embeddings', bad(400, 'invalid_request', 'input'), JSON.stringify({ model: 'gamma-5.4', input: [] })),
  call('embeddings of 3000 inputs', 'POST', '/v1/embeddings', bad(400, 'invalid_request', 'input'), JSON.stringify({ model: 'gamma-5.4', input: Array.from({ length: 3000 }, () => 'x') })),
  call('embeddings dimensions negative', 'POST', '/v1/embeddings', bad(400, 'invalid_request', 'dimensions'), JSON.stringify({ model: 'gamma-5.4', input: 'x', dimensions: -5 })),
  call('embeddings in hex', 'POST', '/v1/embeddings', bad(400, 'invalid_request', 'encoding_format'), JSON.stringify({ model: 'gamma-5.4', input: 'x', encoding_format: 'hex' })),
  call('embeddings from a model without them', 'POST', '/v1/embeddings', bad(400, 'invalid_request', 'model'), JSON.stringify({ model: 'alpha-sonnet-4.6', input: 'x' })),
];

/** An admin call with the admin token. */
const adminCase = (name: string, method: string, path: string, expect: CorpusCase['expect'], body?: unknown, auth: Credential | null = 'admin'): CorpusCase => ({
  name: `admin: ${name}`,
  method,
  target: `/admin/v1${path}`,
  ...(auth ? { auth } : {}),
  headers: [JSON_TYPE],
  ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  expect,
});

const UNKNOWN_ID = 'key_0000000000000000';

const ADMIN: CorpusCase[] = [
  adminCase('list keys (control)', 'GET', '/keys', ok()),
  adminCase('no token', 'GET', '/keys', bad(401, 'invalid_api_key'), undefined, null),
  adminCase('an sl- key as the admin token', 'GET', '/keys', bad(401, 'invalid_api_key'), undefined, 'key'),
  adminCase('create: empty body (read as {})', 'POST', '/keys', bad(400, 'invalid_request', 'name'), ''),
  adminCase('create: malformed JSON', 'POST', '/keys', bad(400, 'invalid_json'), '{"name": '),
  adminCase('create: JSON null', 'POST', '/keys', bad(400), 'null'),
  adminCase('create: no name', 'POST', '/keys', bad(400, 'invalid_request', 'name'), {}),
  adminCase('create: name a number', 'POST', '/keys', bad(400, 'invalid_request', 'name'), { name: 5 }),
  adminCase('create: name 201 characters', 'POST', '/keys', bad(400, 'invalid_request', 'name'), { name: 'n'.repeat(201) }),
  adminCase('create: an unknown field', 'POST', '/keys', bad(400, 'invalid_request', 'admin'), { name: 'x', admin: true }),
  adminCase('create: an unknown model', 'POST', '/keys', bad(400, 'invalid_request', 'models'), { name: 'x', models: ['gpt-17'] }),
  adminCase('create: models a string', 'POST', '/keys', bad(400, 'invalid_request', 'models'), { name: 'x', models: 'gamma-5.4' }),
  adminCase('create: a negative ceiling', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_ceiling_usd'), { name: 'x', monthly_ceiling_usd: '-1.00' }),
  adminCase('create: a ceiling of 1e999', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_ceiling_usd'), { name: 'x', monthly_ceiling_usd: '1e999' }),
  adminCase('create: a ceiling as a number', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_ceiling_usd'), { name: 'x', monthly_ceiling_usd: 5 }),
  adminCase('create: a ceiling of 30 digits', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_ceiling_usd'), { name: 'x', monthly_ceiling_usd: '9'.repeat(30) }),
  adminCase('create: expires_at not a date', 'POST', '/keys', bad(400, 'invalid_request', 'expires_at'), { name: 'x', expires_at: 'tomorrow' }),
  adminCase('create: expires_at in year 275760', 'POST', '/keys', bad(400, 'invalid_request', 'expires_at'), { name: 'x', expires_at: '+275760-09-13T00:00:00.001Z' }),
  adminCase('create: rpm_limit a fraction', 'POST', '/keys', bad(400, 'invalid_request', 'rpm_limit'), { name: 'x', rpm_limit: 1.5 }),
  adminCase('create: rpm_limit 1e400', 'POST', '/keys', bad(400, 'invalid_request', 'rpm_limit'), '{"name":"x","rpm_limit":1e400}'),
  adminCase('create: a body over 1 MB', 'POST', '/keys', bad(413, 'payload_too_large'), { name: 'x', pad: 'p'.repeat(1_100_000) }),
  adminCase('create: nesting 100 000 deep', 'POST', '/keys', bad(400), `{"name":"x","deep":${nested(100_000)}}`),
  adminCase('get an unknown key', 'GET', `/keys/${UNKNOWN_ID}`, bad(404, 'not_found', 'id')),
  adminCase('get a key id with a bad escape', 'GET', '/keys/%zz', html(400)),
  adminCase('get a key id of 5 KB', 'GET', `/keys/${'k'.repeat(5000)}`, bad(404, 'not_found', 'id')),
  adminCase('patch an unknown key', 'PATCH', `/keys/${UNKNOWN_ID}`, bad(404, 'not_found', 'id'), { name: 'x' }),
  adminCase('patch with an array body', 'PATCH', `/keys/${UNKNOWN_ID}`, bad(400), []),
  adminCase('revoke an unknown key', 'POST', `/keys/${UNKNOWN_ID}/revoke`, bad(404, 'not_found', 'id')),
  adminCase('rotate an unknown key', 'POST', `/keys/${UNKNOWN_ID}/rotate`, bad(404, 'not_found', 'id')),
  adminCase('DELETE a key (no such route)', 'DELETE', `/keys/${UNKNOWN_ID}`, bad(404, 'not_found')),
  adminCase('an unknown admin path', 'GET', '/secrets', bad(404, 'not_found')),
  adminCase('usage of an unknown key', 'GET', `/keys/${UNKNOWN_ID}/usage`, bad(404, 'not_found', 'id')),
  adminCase('audit with a junk limit', 'GET', '/audit?limit=abc', ok()),
  adminCase('audit with limit -5', 'GET', '/audit?limit=-5', ok()),
  adminCase('audit with limit 1e400', 'GET', '/audit?limit=1e400', ok()),
  adminCase('import: no key', 'POST', '/imports', bad(400, 'invalid_request', 'key'), {}),
  adminCase('import: an sl- key', 'POST', '/imports', bad(400, 'invalid_request', 'key'), { key: 'sl-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345' }),
  adminCase('import: a key of no known kind', 'POST', '/imports', bad(400, 'invalid_request', 'key'), { key: 'xyz-123' }),
  adminCase('import: history of an unknown format', 'POST', '/imports', bad(400, 'invalid_request', 'history'), { key: 'qua-abcdef0123456789', history: { format: 'xml', content: '<x/>' } }),
  adminCase('import: a CSV of garbage', 'POST', '/imports', bad(400, 'invalid_request'), { key: 'qua-abcdef0123456789', history: { format: 'csv', content: '\u0000,"unterminated\n1,2,3' } }),
  adminCase('import: JSON history that is not JSON', 'POST', '/imports', bad(400, 'invalid_request'), { key: 'qua-abcdef0123456789', history: { format: 'json', content: '[{' } }),
  adminCase('import: JSON history with huge numbers', 'POST', '/imports', bad(400, 'invalid_request'), { key: 'qua-abcdef0123456789', history: { format: 'json', content: '[{"date":"2026-11-01","model":"gamma-5.4","input_tokens":1e400,"output_tokens":-1,"cost":"NaN"}]' } }),
  adminCase('import: fetch without a connector', 'POST', '/imports', bad(400, 'invalid_request'), { key: 'or-abcdef0123456789', fetch: true }),
  adminCase('import: a body over 16 MB', 'POST', '/imports', bad(413, 'payload_too_large'), { key: 'qua-abcdef0123456789', pad: 'p'.repeat(17_000_000) }),
  adminCase('get an unknown import', 'GET', '/imports/imp_0000', bad(404, 'not_found', 'id')),
  adminCase('delete an unknown import', 'DELETE', '/imports/imp_0000', bad(404, 'not_found', 'id')),
  adminCase('incident: empty', 'POST', '/incidents', bad(400, 'invalid_request', 'title'), {}),
  adminCase('incident: an unknown status', 'POST', '/incidents', bad(400, 'invalid_request', 'status'), { title: 'x', status: 'on fire' }),
  adminCase('incident: models not a list', 'POST', '/incidents', bad(400, 'invalid_request', 'models'), { title: 'x', models: 'gamma-5.4' }),
  adminCase('incident: an unknown model', 'POST', '/incidents', bad(400, 'invalid_request', 'models'), { title: 'x', models: ['gpt-17'] }),
  adminCase('patch an unknown incident', 'PATCH', '/incidents/inc_0000', bad(404, 'not_found', 'id'), { title: 'x' }),
  adminCase('get an incident id that is not a number', 'GET', '/incidents/%F0%9F%8E%89', bad(404, 'not_found', 'id')),
];

export const CORPUS: readonly CorpusCase[] = [...CHAT, ...HEADERS, ...AUTH, ...PATHS, ...ENDPOINTS, ...ADMIN];
