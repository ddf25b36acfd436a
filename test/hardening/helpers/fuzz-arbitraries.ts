import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { CREDENTIALS, type Credential } from './probe-gateway.js';

/**
 * What the fuzzer sends: a documented route of the API or the admin API, each part of it (method,
 * path, credential, body) sometimes replaced by anything, odd headers added, and a body that is a
 * near-valid request with fields replaced by arbitrary JSON (wrong types, huge numbers, any
 * Unicode, deep nesting), arbitrary JSON, or not JSON at all. `{victim}` in a target is the probe
 * gateway's expendable key id.
 */

export interface FuzzRequest {
  method: string;
  target: string;
  auth: Credential | 'none' | 'basic' | 'double';
  headers: Array<[string, string]>;
  body: string | Buffer | undefined;
}

const MODELS = ['gamma-5.4', 'alpha-sonnet-4.6', 'beta-3-flash', 'GAMMA-5-4', 'nope'];

/** Numbers JSON.parse turns into something odd: Infinity, -0, 2^64, a tiny denormal. */
const ODD_NUMBER_TEXT = ['1e400', '-1e400', '-0', '18446744073709551616', '5e-324', '0.1e1', '1E2'];
const MARK = '"__odd_number__"';

/** Any JSON value: arbitrary trees with any Unicode (lone surrogates too), big numbers, deep arrays. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 400 }).map((depth) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown) },
  { weight: 1, arbitrary: fc.constant('__odd_number__') },
  { weight: 1, arbitrary: fc.oneof(fc.double(), fc.bigInt().map(String), fc.maxSafeInteger()) },
);

/** A near-valid body of some endpoint, each field kept or replaced by any JSON, some fields dropped. */
function mutated(template: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<string> {
  const fields = Object.fromEntries(
    Object.entries(template).map(([name, valid]) => [name, fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: anyJson })]),
  );
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.dictionary(fc.string({ unit: 'binary', maxLength: 12 }), anyJson, { maxKeys: 2 }),
      fc.constantFrom(...ODD_NUMBER_TEXT),
    )
    .map(([body, extra, odd]) => JSON.stringify({ ...extra, ...body }).replaceAll(MARK, odd));
}

const message = fc.record({
  role: fc.constantFrom('user', 'system', 'assistant', 'tool', 'wizard'),
  content: fc.oneof(fc.string({ unit: 'binary' }), anyJson),
});
const CHAT = mutated({
  model: fc.constantFrom(...MODELS),
  messages: fc.array(message, { minLength: 1, maxLength: 4 }),
  stream: fc.boolean(),
  max_tokens: fc.integer({ min: -2, max: 40 }),
  temperature: fc.double({ min: -1, max: 3, noNaN: true }),
  n: fc.integer({ min: 0, max: 3 }),
  tools: fc.array(fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.string(), parameters: anyJson }) }), { maxLength: 2 }),
  response_format: fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema') }),
});
const COMPLETION = mutated({
  model: fc.constantFrom(...MODELS),
  prompt: fc.oneof(fc.string({ unit: 'binary' }), fc.array(fc.string())),
  max_tokens: fc.integer({ min: -1, max: 20 }),
  stream: fc.boolean(),
});
const EMBEDDINGS = mutated({
  model: fc.constantFrom(...MODELS),
  input: fc.oneof(fc.string({ unit: 'binary' }), fc.array(fc.string(), { maxLength: 3 })),
  dimensions: fc.integer({ min: -1, max: 16 }),
  encoding_format: fc.constantFrom('float', 'base64', 'hex'),
});
const USD = fc.oneof(fc.constantFrom('1.00', '0', '-1', '1e9', '0.0000000001'), fc.string());
const KEY_SETTINGS = mutated({
  name: fc.string({ unit: 'binary' }),
  models: fc.array(fc.constantFrom(...MODELS)),
  monthly_ceiling_usd: USD,
  monthly_upstream_limit_usd: USD,
  expires_at: fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.string(),
  ),
  rpm_limit: fc.integer({ min: -1, max: 2_000_000 }),
});
const IMPORT = mutated({
  key: fc.constantFrom('qua-abcdef0123456789', 'sk-abcdef0123456789', 'or-abcdef0123456789', 'sl-x', ''),
  label: fc.string({ unit: 'binary' }),
  history: fc.record({
    format: fc.constantFrom('csv', 'json', 'xml'),
    content: fc.oneof(fc.string({ unit: 'binary' }), fc.constant('date,model,input_tokens,output_tokens,cost\n2026-11-01,gamma-5.4,1,2,0.01')),
  }),
  fetch: fc.boolean(),
});
const INCIDENT = mutated({
  title: fc.string({ unit: 'binary' }),
  message: fc.string(),
  status: fc.constantFrom('investigating', 'resolved', 'on fire'),
  impact: fc.constantFrom('minor', 'major', 'huge'),
  models: fc.array(fc.constantFrom(...MODELS)),
});

/** A valid JSON text cut at any point. */
const truncated = fc.tuple(CHAT, fc.nat()).map(([text, at]) => text.slice(0, at % Math.max(1, text.length)));

/** Any body at all: another endpoint's, any JSON, not JSON, nothing. */
const anyBody: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(CHAT, COMPLETION, EMBEDDINGS, KEY_SETTINGS, IMPORT, INCIDENT) },
  { weight: 2, arbitrary: anyJson.map((value) => JSON.stringify(value).replaceAll(MARK, '1e400')) },
  { weight: 2, arbitrary: fc.oneof(truncated, fc.string({ unit: 'binary', maxLength: 200 })) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, '', ' ', 'null', '\uFEFF{}') },
);

interface Route {
  method: string;
  path: string;
  auth: 'key' | 'admin' | 'none';
  body?: fc.Arbitrary<string>;
}

/** Every documented route with its method, credential and body: the fuzzer's starting points. */
const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/v1/chat/completions', auth: 'key', body: CHAT },
  { method: 'POST', path: '/v1/completions', auth: 'key', body: COMPLETION },
  { method: 'POST', path: '/v1/embeddings', auth: 'key', body: EMBEDDINGS },
  { method: 'GET', path: '/v1/usage', auth: 'key' },
  { method: 'GET', path: '/v1/models', auth: 'none' },
  { method: 'GET', path: '/v1/models/beta-3.1-pro-preview', auth: 'none' },
  { method: 'GET', path: '/admin/v1/keys', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/keys', auth: 'admin', body: KEY_SETTINGS },
  { method: 'PATCH', path: '/admin/v1/keys/{victim}', auth: 'admin', body: KEY_SETTINGS },
  { method: 'POST', path: '/admin/v1/keys/{victim}/rotate', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/keys/{victim}/revoke', auth: 'admin' },
  { method: 'GET', path: '/admin/v1/keys/{victim}/usage', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/imports', auth: 'admin', body: IMPORT },
  { method: 'GET', path: '/admin/v1/imports', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/incidents', auth: 'admin', body: INCIDENT },
  { method: 'PATCH', path: '/admin/v1/incidents/1', auth: 'admin', body: INCIDENT },
  { method: 'GET', path: '/admin/v1/audit', auth: 'admin' },
  { method: 'GET', path: '/admin/v1/usage', auth: 'admin' },
  { method: 'GET', path: '/healthz', auth: 'none' },
  { method: 'GET', path: '/readyz', auth: 'none' },
  { method: 'GET', path: '/metrics', auth: 'none' },
  { method: 'GET', path: '/status.json', auth: 'none' },
];

/** Paths nobody documented: random segments, escapes (some undecodable), dot segments, very long ones. */
const oddPath = (route: Route): fc.Arbitrary<string> =>
  fc.oneof(
    fc.webPath().map((path) => (path.startsWith('/') ? path : `/${path}`)),
    fc
      .array(fc.oneof(fc.webSegment(), fc.constantFrom('%zz', '%00', '%C0%AF', '..', '%2F', 'v1', 'admin', '%F0%9F%8E%89')), { minLength: 1, maxLength: 6 })
      .map((segments) => `/${segments.join('/')}`),
    fc.constant(`${route.path}/${'x'.repeat(3000)}`),
  );

const ODD_HEADERS: ReadonlyArray<[string, string]> = [
  ['Content-Type', 'text/plain'],
  ['Content-Type', 'application/json; charset=utf-8'],
  ['Content-Type', 'application/x-www-form-urlencoded'],
  ['Content-Encoding', 'gzip'],
  ['Content-Encoding', 'br'],
  ['Content-Encoding', 'zstd'],
  ['Expect', '100-continue'],
  ['x-api-key', 'sl-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345'],
  ['Accept-Encoding', 'gzip, br'],
  ['Accept', 'text/event-stream'],
  ['X-Forwarded-For', '10.0.0.1, 127.0.0.1'],
  ['Cookie', 'session=abc'],
];

/** Mostly the route as documented, each part sometimes replaced by anything. */
const usually = <T>(documented: fc.Arbitrary<T>, other: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ weight: 4, arbitrary: documented }, { weight: 1, arbitrary: other });

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .constantFrom(...ROUTES)
  .chain((route) =>
    fc.record({
      method: usually(fc.constant(route.method), fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS')),
      target: fc
        .tuple(
          usually(fc.constant(route.path), oddPath(route)),
          fc.option(
            fc.webQueryParameters().map((q) => `?${q}`),
            { nil: '' },
          ),
        )
        .map(([path, query]) => path + query),
      auth: usually<FuzzRequest['auth']>(fc.constant(route.auth), fc.constantFrom(...CREDENTIALS, 'none', 'basic', 'double')),
      headers: fc.subarray([...ODD_HEADERS], { maxLength: 3 }),
      body: route.body ? usually<string | undefined>(route.body, anyBody) : usually<string | undefined>(fc.constant(undefined), anyBody),
      /** Whether a claimed gzip encoding is honest. */
      gzipped: fc.boolean(),
    }),
  )
  .map(({ gzipped, ...request }) => {
    const claimsGzip = request.headers.some(([name, value]) => name === 'Content-Encoding' && value === 'gzip');
    const honest = claimsGzip && gzipped && request.body !== undefined;
    return { ...request, body: honest ? gzipSync(request.body as string) : request.body };
  });
