import t from 'tap';
import { ADMIN_CORPUS } from './corpus/admin-inputs.js';
import { API_CORPUS } from './corpus/api-inputs.js';
import type { CorpusCase } from './corpus/cases.js';
import { contractProblems, shapeOf } from './helpers/answer-shape.js';
import { startProbeGateway, type Credential } from './helpers/probe-gateway.js';
import { rawRequest, type RawRequest } from './helpers/raw-http.js';
import { parseJson, type Envelope } from './helpers/replies.js';

const CORPUS: readonly CorpusCase[] = [...API_CORPUS, ...ADMIN_CORPUS];

/**
 * The bad-input corpus (corpus/api-inputs.ts, corpus/admin-inputs.ts), deterministic, against a real gateway process:
 * each case's status and body kind (and code and param where named), the contract's general
 * rule for every answer, and the process alive and within its memory bound afterwards.
 */

/**
 * How much the gateway's resident memory may grow over the corpus (measured: 114 → 175 MiB,
 * mostly from 100 000 messages, a 20 MiB inflated body and 100 000-deep nesting).
 */
const RSS_GROWTH_MIB = 150;

function toRequest(c: CorpusCase, token: Readonly<Record<Credential, string>>): RawRequest {
  const fill = (value: string): string => value.replace(/\{(\w+)\}/g, (whole, name: string) => token[name as Credential] ?? whole);
  const headers: Array<[string, string]> = (c.headers ?? []).map(([name, value]) => [name, fill(value)]);
  if (c.auth) headers.push(['Authorization', `Bearer ${token[c.auth]}`]);
  return { method: c.method, target: c.target, headers, ...(c.body !== undefined ? { body: c.body } : {}) };
}

t.test('the bad-input corpus: every named case answers as the contract says', async (t) => {
  const gateway = await startProbeGateway(t);
  for (const c of CORPUS) {
    const res = await rawRequest(gateway.origin, toRequest(c, gateway.token), { timeoutMs: 15_000 }).catch((error: unknown) => error as Error);
    if (res instanceof Error) {
      t.fail(`${c.name}: ${res.message}`);
      continue;
    }
    const shape = shapeOf(res);
    t.equal(res.status, c.expect.status, `${c.name}: ${c.expect.status}`);
    t.equal(shape, c.expect.body, `${c.name}: a body of kind ${c.expect.body}`);
    t.same(contractProblems(res, c.method), [], `${c.name}: within the contract`);
    const envelope = shape === 'envelope' ? (parseJson(res.text) as Envelope).error : undefined;
    if (c.expect.code) t.equal(envelope?.code, c.expect.code, `${c.name}: code ${c.expect.code}`);
    if (c.expect.param !== undefined) t.equal(envelope?.param, c.expect.param, `${c.name}: param ${c.expect.param}`);
  }
  t.ok(await gateway.healthy(), 'the gateway is alive after the corpus');
  const growth = gateway.rssMiB() - gateway.baselineMiB;
  t.ok(growth < RSS_GROWTH_MIB, `RSS grew ${growth.toFixed(0)} MiB (< ${RSS_GROWTH_MIB}) from ${gateway.baselineMiB.toFixed(0)} MiB`);
  t.comment(`${CORPUS.length} cases`);
});
