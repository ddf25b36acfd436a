import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import t from 'tap';
import { Call, type UpstreamAttempt } from '../../src/chain/call.js';
import { ENDPOINTS } from '../helpers/endpoints.js';
import { GatewayError } from '../../src/http/errors.js';
import { failed, succeeded } from '../../src/pipeline/outcome.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';

/** A call as the pipeline holds it, with the attempts it made (codes as the exchange records them). */
function callWith(codes: Array<string | null>, headersSent = false): Call {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  if (headersSent) Object.defineProperty(res, 'headersSent', { value: true });
  const call = new Call(ENDPOINTS['chat.completions'], req, res, 0);
  for (const code of codes) {
    const attempt: UpstreamAttempt = {
      model: 'gamma-5.4',
      family: 'gamma',
      status: 0,
      code,
      startedAt: 0,
      endedAt: 0,
      waitMs: 0,
      then: null,
      deployment: 'default',
    };
    call.upstreamAttempts.push(attempt);
    call.attempts += 1;
  }
  return call;
}

t.test('one place decides outcome and status', async (t) => {
  const ok = callWith([null]);
  succeeded(ok);
  t.same([ok.outcome, ok.status], ['ok', 200]);

  const cases: Array<{ name: string; codes: Array<string | null>; thrown: unknown; outcome: string; status: number }> = [
    { name: 'a refusal before any upstream', codes: [], thrown: new GatewayError(403, 'no'), outcome: 'rejected', status: 403 },
    { name: 'the upstream answered an error', codes: ['503'], thrown: new GatewayError(503, 'busy'), outcome: 'upstream_error', status: 503 },
    { name: 'the last attempt timed out', codes: ['503', 'headers_timeout'], thrown: new GatewayError(504, 'slow'), outcome: 'timeout', status: 504 },
    { name: 'a stream went silent', codes: ['stream_idle'], thrown: new GatewayError(504, 'silent'), outcome: 'timeout', status: 504 },
    {
      name: 'a timeout, then another failure',
      codes: ['connect_timeout', 'reset'],
      thrown: new GatewayError(502, 'reset'),
      outcome: 'upstream_error',
      status: 502,
    },
    { name: 'a body that is not the vendor format', codes: ['invalid_body'], thrown: new GatewayError(502, 'garbage'), outcome: 'upstream_error', status: 502 },
    { name: "the gateway's own failure after an attempt", codes: [null], thrown: new GatewayError(500, 'ledger down'), outcome: 'error', status: 500 },
    { name: 'a bug (not a GatewayError)', codes: [null], thrown: new TypeError('x is undefined'), outcome: 'error', status: 500 },
    {
      name: 'the database unreachable before any upstream',
      codes: [],
      thrown: new StoreUnavailableError('postgres', new Error('ECONNREFUSED')),
      outcome: 'rejected',
      status: 503,
    },
    {
      name: 'the database unreachable when the call is recorded',
      codes: [null],
      thrown: new StoreUnavailableError('sqlite', new Error('SQLITE_BUSY')),
      outcome: 'error',
      status: 503,
    },
  ];
  for (const c of cases) {
    const call = callWith(c.codes);
    const error = failed(call, c.thrown);
    t.same([call.outcome, call.status, error?.status], [c.outcome, c.status, c.status], c.name);
    t.equal(call.error, error, `${c.name}: the error is kept on the call`);
  }
  const bug = failed(callWith([]), new TypeError('secret detail'));
  t.notMatch(bug?.message ?? '', /secret detail/, "a bug's own message never reaches the caller");
  const down = failed(callWith([]), new StoreUnavailableError('postgres', new Error('connect ECONNREFUSED 10.0.0.5:5432')));
  t.match(down?.toEnvelope(), { error: { type: 'unavailable', code: 'service_unavailable', param: null } }, 'our envelope');
  t.notMatch(down?.message ?? '', /10\.0\.0\.5/, "nor does the database's address");
});

t.test('a stream that already sent its 200 keeps it; a caller who left is 499 with nothing to send', async (t) => {
  const streaming = callWith(['reset'], true);
  streaming.status = 200;
  t.equal(failed(streaming, new GatewayError(502, 'reset'))?.status, 502, 'the error frame carries 502');
  t.same([streaming.outcome, streaming.status], ['upstream_error', 200], 'the status sent stays 200');

  const gone = callWith([null]);
  gone.callerLeft();
  t.equal(failed(gone, new GatewayError(502, 'whatever')), null);
  t.same([gone.outcome, gone.status, gone.error], ['client_disconnected', 499, null]);
});

t.test("the call's one abort signal", async (t) => {
  const call = callWith([]);
  let heard = 0;
  call.onCallerGone(() => (heard += 1));
  t.equal(call.callerGone, false);
  call.callerLeft();
  call.callerLeft();
  t.equal(call.callerGone, true);
  t.equal(heard, 1, 'aborted once, however often the caller is seen leaving');
  let late = 0;
  call.onCallerGone(() => (late += 1));
  t.equal(late, 1, 'a listener added after the caller left runs at once');

  const other = callWith([]);
  let stopped = 0;
  const stop = other.onCallerGone(() => (stopped += 1));
  stop();
  other.callerLeft();
  t.equal(stopped, 0, 'a listener that stopped listening is not told');
});
