import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { GRANT_LIFE_MS, LIMIT_SHARE } from '../../src/store/granted-admissions.js';
import { admin } from '../helpers/gateway-processes.js';
import { chat, instancesOnPostgres } from '../helpers/instances.js';

/**
 * Admissions granted ahead (src/store/granted-admissions.ts) with three gateway processes on one
 * PostgreSQL database: busy instances take their calls' admissions a few at a time, and the rate
 * cap and the money still hold exactly across the three. Nothing granted is left held.
 */

t.setTimeout(120_000);
const instances = await instancesOnPostgres(t);
const origins = await Promise.all(['gw-a', 'gw-b', 'gw-c'].map((name) => instances.start(name).ready));

const RPM = 640;
const CALLS_PER_INSTANCE = 300;
const CONCURRENCY = 8;

/** `calls` chat calls to one instance, `CONCURRENCY` at a time; their statuses. */
async function load(origin: string, key: string, calls: number): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      next++;
      statuses.push((await chat(origin, key, 'go')).status);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return statuses;
}

t.test(`rpm_limit ${RPM}: ${3 * CALLS_PER_INSTANCE} calls over three busy instances, granted ahead, never more than the cap`, async (t) => {
  const { id, key } = (await admin(origins[0] as string, 'POST', '/keys', { name: 'grants', rpm_limit: RPM, monthly_ceiling_usd: '100.00' })) as {
    id: string;
    key: string;
  };
  const statuses = (await Promise.all(origins.map((origin) => load(origin, key, CALLS_PER_INSTANCE)))).flat();
  const admitted = statuses.filter((s) => s === 200).length;
  t.equal(admitted + statuses.filter((s) => s === 429).length, statuses.length, 'every call admitted or refused by the rate cap');
  t.ok(admitted <= RPM, `${admitted} admitted: never more than the cap`);
  // Granted and never used: at most two grants in hand per instance, each at most 1/64 of the cap.
  const unusedAtMost = 3 * 2 * (RPM / LIMIT_SHARE);
  t.ok(admitted >= RPM - unusedAtMost, `${admitted} admitted: at most ${unusedAtMost} places taken by grants no call used`);

  const slots = await instances.query('SELECT at, COUNT(*)::int AS n FROM rate_slots WHERE key_id = $1 GROUP BY at', [id]);
  const counted = slots.reduce((sum, row) => sum + Number(row['n']), 0);
  const inGrants = slots.filter((row) => Number(row['n']) > 1).reduce((sum, row) => sum + Number(row['n']), 0);
  t.ok(counted >= admitted && counted <= RPM, `${counted} places taken in the window`);
  t.ok(inGrants > counted / 2, `${inGrants} of them taken a few at a time, by grants (one stamp for each grant)`);

  await sleep(GRANT_LIFE_MS + 500);
  const [spend] = await instances.query('SELECT charged_nano, reserved_nano FROM spend WHERE key_id = $1', [id]);
  const [ledger] = await instances.query('SELECT COUNT(*)::int AS n, COALESCE(SUM(charged_nano), 0)::bigint AS charged FROM ledger WHERE key_id = $1', [id]);
  t.equal(ledger?.['n'], admitted, 'one ledger row per admitted call');
  t.equal(Number(spend?.['charged_nano']), Number(ledger?.['charged']), 'the spend is the sum of the rows');
  t.equal(Number(spend?.['reserved_nano']), 0, 'nothing held once the grants ended: what no call used was released');
  const [held] = await instances.query('SELECT COUNT(*)::int AS n FROM reservations WHERE key_id = $1', [id]);
  t.equal(held?.['n'], 0, 'no reservation left');
});

t.test('a ceiling: grants stop short of it, and the instances together admit exactly what fits', async (t) => {
  // gamma-5.4 with max_tokens 4 reserves $0.00001 (and is charged as much here): 300 fit $0.003.
  const { id, key } = (await admin(origins[1] as string, 'POST', '/keys', { name: 'grants ceiling', monthly_ceiling_usd: '0.003' })) as {
    id: string;
    key: string;
  };
  const statuses = (await Promise.all(origins.map((origin) => load(origin, key, CALLS_PER_INSTANCE)))).flat();
  t.ok(
    statuses.every((s) => s === 200 || s === 402),
    'admitted or refused by the ceiling',
  );
  await sleep(GRANT_LIFE_MS + 500);
  const [spend] = await instances.query('SELECT charged_nano, reserved_nano FROM spend WHERE key_id = $1', [id]);
  t.equal(Number(spend?.['reserved_nano']), 0, 'nothing held');
  // One by one now (nothing granted so close to the ceiling): admitted until the next reservation no longer fits.
  let more = 0;
  while (more < 5_000 && (await chat(origins[more % 3] as string, key, 'go')).status === 200) more++;
  const [after] = await instances.query('SELECT charged_nano FROM spend WHERE key_id = $1', [id]);
  const charged = Number(after?.['charged_nano']);
  t.ok(
    charged <= 3_000_000 && charged + 10_000 > 3_000_000,
    `spent ${charged} nano-dollars of 3,000,000: the ceiling is reached exactly (less than one reservation left)`,
  );
  const underLoad = statuses.filter((s) => s === 200).length;
  t.equal(underLoad + more, 300, `${underLoad} admitted under load, ${more} more one by one: the 300 that fit`);
});
