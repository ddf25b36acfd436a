import fc from 'fast-check';
import t from 'tap';
import { contractProblems } from './helpers/answer-shape.js';
import { fuzzRequest, type FuzzRequest } from './helpers/fuzz-arbitraries.js';
import { startProbeGateway, type ProbeGateway } from './helpers/probe-gateway.js';
import { rawRequest, type RawRequest } from './helpers/raw-http.js';
import { scaled, SEED } from './helpers/scale.js';

/**
 * Property-based fuzzing of every request path and the admin API (helpers/fuzz-arbitraries.ts)
 * against a real gateway process: every answer keeps the contract (answer-shape.ts), none takes
 * longer than 15 s, the process answers /healthz after every batch and its memory stays within
 * a bound. A fixed seed in `npm test`; HARDENING_SEED picks another. A failure is shrunk by
 * fast-check; minimise it into the corpus (corpus/api-inputs.ts, admin-inputs.ts).
 */

const RUNS = scaled(800, 30_000);
/** The short form stops early on a slow machine rather than overrun tap's 60 s. */
const TIME_LIMIT_MS = scaled(35_000, 900_000);
const BATCH = 50;
/** Growth of the gateway's RSS over the run (measured: +24 MiB over 800 runs, +72 MiB at most over 30 000). */
const RSS_GROWTH_MIB = 200;
/** The admin lockout counts wrong tokens per client address: those come from another loopback address. */
const STRANGER = '127.0.0.2';

function toRaw(request: FuzzRequest, gateway: ProbeGateway): RawRequest {
  const headers = [...request.headers];
  const { token } = gateway;
  if (request.auth === 'basic') headers.push(['Authorization', 'Basic dXNlcjpwYXNz']);
  else if (request.auth === 'double') headers.push(['Authorization', `Bearer ${token.key}`], ['Authorization', `Bearer ${token.restricted}`]);
  else if (request.auth !== 'none') headers.push(['Authorization', `Bearer ${token[request.auth]}`]);
  return {
    method: request.method,
    target: request.target.replaceAll('{victim}', gateway.victimId),
    headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
  };
}

t.test(`fuzzing the API and the admin API (seed ${SEED})`, async (t) => {
  const gateway = await startProbeGateway(t);
  let sent = 0;
  let peakGrowth = 0;
  const property = fc.asyncProperty(fuzzRequest, async (request) => {
    const raw = toRaw(request, gateway);
    const stranger = request.target.startsWith('/admin') && request.auth !== 'admin';
    const res = await rawRequest(gateway.origin, raw, { timeoutMs: 15_000, ...(stranger ? { localAddress: STRANGER } : {}) });
    const problems = contractProblems(res, request.method);
    if (problems.length) throw new Error(`${problems.join('; ')} (answer ${res.status} ${res.text.slice(0, 300)})`);
    sent += 1;
    if (sent % BATCH === 0) {
      if (!(await gateway.healthy())) throw new Error(`/healthz failed after ${sent} requests`);
      peakGrowth = Math.max(peakGrowth, gateway.rssMiB() - gateway.baselineMiB);
      if (peakGrowth > RSS_GROWTH_MIB) throw new Error(`RSS grew ${peakGrowth.toFixed(0)} MiB after ${sent} requests`);
    }
  });
  const details = await fc.check(property, { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false });
  const why = details.failed ? `${String(details.errorInstance)}\n${fc.defaultReportMessage(details) ?? ''}` : '';
  t.notOk(details.failed, details.failed ? why : `${details.numRuns} runs kept the contract`);
  t.ok(await gateway.healthy(), 'the gateway is alive at the end');
  t.ok(details.numRuns >= Math.min(RUNS, 100), `${details.numRuns} runs made (of ${RUNS})`);
  t.comment(
    `seed ${SEED}: ${details.numRuns} runs, ${sent} answers within the contract, RSS ${gateway.baselineMiB.toFixed(0)} MiB +${peakGrowth.toFixed(0)} MiB at most`,
  );
});
