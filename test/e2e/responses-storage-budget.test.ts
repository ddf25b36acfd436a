import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadSetup } from '../../src/setup.js';
import { ADMIN_TOKEN, FakeClock, startHarness, type Harness } from '../helpers/harness.js';
import { pluginConfig } from '../helpers/ops.js';

/**
 * A key's stored responses are bounded in bytes: past `max_stored_bytes_per_key`, its oldest are
 * pruned — as soon as an eighth of the budget was stored since the key's last trim, else at the
 * hourly prune — and then answer previous_response_not_found like expired ones; its newest still
 * continue.
 */

type Json = Record<string, any>;
/** Each response stores 1,318 bytes (its input of 1,000 characters and a short output). */
const RESPONSE_INPUT = 1_000;

async function post(h: Harness, key: string, body: Json): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${h.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

const budgeted = (bytes: number): ReturnType<typeof pluginConfig> => pluginConfig('ingress-responses', { max_stored_bytes_per_key: bytes });
/** How many responses the trims have removed so far, from their log lines. */
const removed = (h: Harness): number =>
  h.logs.filter((line) => line.includes('stored-bytes budget pruned')).reduce((sum, line) => sum + Number((JSON.parse(line) as Json)['removed']), 0);

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Stores `count` responses of 1,318 bytes each, letting each one's trim (if due) finish before the next. */
async function store(h: Harness, key: string, clock: FakeClock, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    clock.advance(1_000); // one response per second: their order is their age
    const res = await post(h, key, { model: 'gamma-5.4', input: `${i % 10}`.repeat(RESPONSE_INPUT), max_output_tokens: 16 });
    if (res.status !== 200) throw new Error(`not stored: ${res.status}`);
    ids.push(res.json['id']);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return ids;
}

async function continues(t: Test, h: Harness, key: string, ids: readonly string[], expected: boolean): Promise<void> {
  for (const id of ids) {
    const res = await post(h, key, { model: 'gamma-5.4', input: 'again', previous_response_id: id });
    t.same(
      [res.status, res.json['error']?.code],
      expected ? [200, undefined] : [400, 'previous_response_not_found'],
      expected ? 'a newest response continues' : 'an older one beyond the budget is gone',
    );
  }
}

t.test("past its byte budget, a key's oldest responses are pruned as it stores, and its newest still continue", async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock, configure: budgeted(3_000) });
  const { key } = await h.createKey();
  const ids = await store(h, key, clock, 4); // two fit the budget; every one is over an eighth of it
  await until(() => removed(h) >= 2);
  t.equal(removed(h), 2, 'the two oldest went, within the hour');
  await continues(t, h, key, ids.slice(0, 2), false);
  await continues(t, h, key, ids.slice(2), true);
});

t.test('growth below an eighth of the budget is trimmed at the hourly prune, also after a restart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'responses-budget-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const clock = new FakeClock();
  // An eighth of 22,000 bytes is 2,750: three responses are due a trim. The first response's
  // prune (the first since the start) trims at once; then trims follow the 4th, 7th … 16th
  // (21,088 bytes: within budget); the 17th and 18th put the key over (23,724), below an eighth.
  const options = { clock, configure: budgeted(22_000), env: { GATEWAY_DB: join(dir, 'gateway.db') } };
  const before = await startHarness(t, options);
  const { key } = await before.createKey();
  const ids = await store(before, key, clock, 18);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(removed(before), 0, 'over the budget by less than an eighth: nothing trimmed yet');
  await before.close();

  const after = await startHarness(t, options);
  await store(after, key, clock, 1); // the first prune after the start trims the key it stored for
  await until(() => removed(after) > 0);
  t.ok(removed(after) >= 2, 'the oldest went at the prune');
  await continues(t, after, key, ids.slice(0, 1), false);
  await continues(t, after, key, ids.slice(-1), true);
});

t.test('the budget is a positive whole number of bytes', async (t) => {
  const setup = await loadSetup('config/gateway.yaml', { GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  t.equal(setup.plugins.find((p) => p.name === 'ingress-responses')?.config['max_stored_bytes_per_key'], 256 * 1024 * 1024, '256 MiB unless set');
  const refused = loadSetup(
    'config/gateway.yaml',
    { GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN },
    { edit: pluginConfig('ingress-responses', { max_stored_bytes_per_key: 0 }) },
  );
  await t.rejects(refused, /\/plugins\/\d+\/config\/max_stored_bytes_per_key/);
});
