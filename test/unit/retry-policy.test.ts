import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import t from 'tap';
import { createRetryPolicy, SPEC_CADENCE, type RetrySettings } from '../../plugins/retry/policy.js';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';
import { Call, type UpstreamAttempt } from '../../src/chain/call.js';
import { ENDPOINTS } from '../helpers/endpoints.js';
import type { AttemptFailure } from '../../src/chain/retry.js';
import { GatewayError } from '../../src/http/errors.js';
import { retryAfterMs } from '../../src/http/retry-after.js';
import type { KeyRecord } from '../../src/store/store.js';

const catalogue = loadCatalogue('config/models.yaml');
const model = (id: string) =>
  catalogue.resolve(id) ??
  (() => {
    throw new Error(id);
  })();

function call(id = 'gamma-5.4', tried: Array<Partial<UpstreamAttempt>> = []): Call {
  const req = new IncomingMessage(new Socket());
  const c = new Call(ENDPOINTS['chat.completions'], req, new ServerResponse(req), 0, undefined);
  c.resolveModel(model(id));
  for (const attempt of tried) {
    c.upstreamAttempts.push({
      model: id,
      family: 'gamma',
      status: 503,
      code: '503',
      startedAt: 0,
      endedAt: 0,
      waitMs: 0,
      then: null,
      deployment: 'default',
      ...attempt,
    });
  }
  return c;
}

const failure = (status: number, code = String(status), retryAfter: number | null = null): AttemptFailure => ({
  status,
  code,
  error: new GatewayError(status === 0 ? 502 : status === 429 ? 429 : status === 503 ? 503 : status === 504 ? 504 : 502, 'x'),
  retryAfterMs: retryAfter,
});

const settings = (over: Partial<RetrySettings> = {}): RetrySettings => ({ max: 4, cadence: SPEC_CADENCE, minAttemptMs: 1000, fallback: new Map(), ...over });

t.test("the contract's retry cadence, jitter at both ends", async (t) => {
  const low = createRetryPolicy(settings({ random: () => 0 }));
  const high = createRetryPolicy(settings({ random: () => 0.999999 }));
  const mid = createRetryPolicy(settings({ random: () => 0.5 }));
  const expected = [
    [250, 500, 750],
    [1000, 1500, 2000],
    [3000, 4000, 5000],
    [8000, 10_000, 12_000],
  ];
  expected.forEach(([min, middle, max], retries) => {
    const tried = Array.from({ length: retries + 1 }, (_, i) => ({ then: i < retries ? ('retry' as const) : null }));
    const at = (policy: ReturnType<typeof createRetryPolicy>) => policy.next(call('gamma-5.4', tried), failure(503), 60_000);
    t.same(at(mid), { kind: 'retry', delayMs: middle }, `retry ${retries + 1}: ${middle} ms`);
    t.equal(at(low)?.delayMs, min);
    t.ok(Math.abs((at(high)?.delayMs ?? 0) - (max as number)) < 0.01);
  });
  const done = Array.from({ length: 5 }, (_, i) => ({ then: i < 4 ? ('retry' as const) : null }));
  t.equal(mid.next(call('gamma-5.4', done), failure(503), 60_000), null, 'at most 4 retries');
  const two = createRetryPolicy(settings({ max: 2, random: () => 0.5 }));
  t.equal(two.next(call('gamma-5.4', [{ then: 'retry' }, { then: 'retry' }, {}]), failure(503), 60_000), null, 'max 2');
  t.equal(createRetryPolicy(settings({ max: 0 })).next(call(), failure(503), 60_000), null, 'max 0: no retries');
});

t.test('what is retried, and the deadline', async (t) => {
  const policy = createRetryPolicy(settings({ random: () => 0.5 }));
  for (const [status, code] of [
    [502, '502'],
    [503, '503'],
    [504, '504'],
    [0, 'connect'],
    [0, 'connect_timeout'],
    [0, 'reset'],
    [0, 'headers_timeout'],
  ] as const) {
    t.equal(policy.next(call(), failure(status, code), 60_000)?.kind, 'retry', `${code} is retried`);
  }
  for (const [status, code] of [
    [500, '500'],
    [400, '400'],
    [401, '401'],
    [404, '404'],
    [429, '429'],
    [0, 'stream_error'],
  ] as const) {
    t.equal(policy.next(call(), failure(status, code), 60_000), null, `${code} is not retried`);
  }
  const overloaded: AttemptFailure = { status: 529, code: '529', error: new GatewayError(503, 'overloaded'), retryAfterMs: null };
  t.equal(policy.next(call(), overloaded, 60_000)?.kind, 'retry', 'an overload signal mapped to 503 is retried');
  t.same(policy.next(call(), failure(429, '429', 7000), 60_000), { kind: 'retry', delayMs: 7000 }, "429 waits the upstream's Retry-After");
  t.equal(policy.next(call(), failure(429, '429', 7000), 7999), null, 'unless it does not fit the deadline');
  t.equal(policy.next(call(), failure(503), 1400), null, '500 ms backoff + 1 s for the attempt do not fit 1.4 s');
  t.equal(policy.next(call(), failure(503), 1500)?.kind, 'retry');
  t.equal(policy.next(call(), failure(503), 999), null, 'less than one attempt left');
});

t.test('sibling fallback: on 503 only, once, within the key scope', async (t) => {
  const policy = createRetryPolicy(settings({ fallback: new Map([['gamma-5.4', model('gamma-5.2')]]), random: () => 0.5 }));
  t.same(policy.next(call(), failure(503), 60_000), { kind: 'fallback', delayMs: 0, model: model('gamma-5.2') });
  t.equal(policy.next(call(), failure(502), 60_000)?.kind, 'retry', '502 retries the same model');
  t.equal(policy.next(call('gamma-5.2', [{ then: 'fallback' }, {}]), failure(503), 60_000)?.kind, 'retry', 'one fallback per call');
  t.equal(policy.next(call('gamma-5.3-code'), failure(503), 60_000)?.kind, 'retry', 'no sibling configured');
  const scoped = call();
  scoped.authenticate({ models: ['gamma-5.4'] } as KeyRecord);
  t.equal(policy.next(scoped, failure(503), 60_000)?.kind, 'retry', 'the key may not use the sibling');
  t.equal(
    createRetryPolicy(settings({ max: 0, fallback: new Map([['gamma-5.4', model('gamma-5.2')]]) })).next(call(), failure(503), 60_000)?.kind,
    'fallback',
    'fallback needs no retry budget',
  );
});

t.test('Retry-After parsing', async (t) => {
  t.equal(retryAfterMs({ 'retry-after': '7' }, 0), 7000);
  t.equal(retryAfterMs({ 'retry-after': ' 0.5 ' }, 0), 500);
  t.equal(retryAfterMs({ 'retry-after': '2', 'retry-after-ms': '150' }, 0), 150, 'retry-after-ms wins');
  t.equal(retryAfterMs({ 'retry-after': 'Wed, 21 Oct 2026 07:28:10 GMT' }, Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')), 10_000);
  t.equal(retryAfterMs({ 'retry-after': 'Wed, 21 Oct 2026 07:28:10 GMT' }, Date.parse('Wed, 21 Oct 2026 08:00:00 GMT')), 0, 'a past date means now');
  t.equal(retryAfterMs({ 'retry-after': 'soon' }, 0), null);
  t.equal(retryAfterMs({ 'retry-after-ms': '-5' }, 0), null);
  t.equal(retryAfterMs({}, 0), null);
});
