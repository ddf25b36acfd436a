import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { compiledGateway } from '../helpers/compiled-gateway.js';
import { admin, gatewayProcesses } from '../helpers/gateway-processes.js';
import { chat, instancesOnPostgres } from '../helpers/instances.js';
import type { SpawnedGateway } from '../helpers/spawn-gateway.js';

/**
 * docs/scale-out.md: a crash holds a ceiling for at most `lease_ms`, by itself. Instance A (a
 * lease of one second, renewed every 250 ms) holds a key's whole ceiling with five slow calls
 * and is killed with SIGKILL; nobody restarts it. Instance B shares the store, with the longest
 * lease there is, so its sweep (every quarter of its lease: 15 minutes) never runs here. Once
 * A's leases ended, B shows none of them held (the key's usage, every key's usage, the key
 * table) while their rows are still in the store, and admits the key up to its whole ceiling.
 * On SQLite and on PostgreSQL.
 */

const LEASE_MS = 1000;
const LONGEST_LEASE_MS = 3_600_000;
// A ceiling that fits exactly 5 calls of max_tokens 4.
const CEILING = '0.00005';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Backend {
  start(name: string, env: Record<string, string>): SpawnedGateway;
  /** How many reservations instance `name` still has in the store. */
  reservationsOf(name: string): Promise<number>;
}

async function sqlite(t: Test): Promise<Backend> {
  const processes = await gatewayProcesses(t, 0, await compiledGateway());
  return {
    start: (name, env) => processes.start({ GATEWAY_INSTANCE_ID: name, ...env }),
    reservationsOf: async (name) => {
      const db = new Database(processes.db, { readonly: true });
      try {
        return (db.prepare('SELECT COUNT(*) AS n FROM reservations WHERE instance = ?').get(name) as { n: number }).n;
      } finally {
        db.close();
      }
    },
  };
}

async function postgres(t: Test): Promise<Backend> {
  const instances = await instancesOnPostgres(t);
  return {
    start: (name, env) => instances.start(name, env),
    reservationsOf: async (name) => Number((await instances.query('SELECT COUNT(*) AS n FROM reservations WHERE instance = $1', [name]))[0]?.['n']),
  };
}

interface Cycle {
  reserved_usd: string;
  remaining_usd: string | null;
}

for (const [backendName, open] of [
  ['sqlite', sqlite],
  ['postgres', postgres],
] as const) {
  t.test(`a dead instance's reservations stop counting at the end of its lease, swept or not [${backendName}]`, async (t) => {
    const backend = await open(t);
    const b = await backend.start('gw-b', { GATEWAY_LEASE_MS: String(LONGEST_LEASE_MS) }).ready;
    const gatewayA = backend.start('gw-a', { GATEWAY_LEASE_MS: String(LEASE_MS) });
    const a = await gatewayA.ready;
    const held = (await admin(b, 'POST', '/keys', { name: 'held', monthly_ceiling_usd: CEILING })) as { id: string; key: string };
    // The two figures, exactly (t.match would take '0.00005' for '0.00': a string matches what contains it).
    const cycle = async (): Promise<Cycle> => {
      const { reserved_usd, remaining_usd } = ((await admin(b, 'GET', `/keys/${held.id}/usage`)) as { cycle: Cycle }).cycle;
      return { reserved_usd, remaining_usd };
    };

    const holders = Array.from({ length: 5 }, () => chat(a, held.key, 'hold [[sim:delay_ms=30000]]').catch(() => null));
    for (let i = 0; i < 100 && (await cycle()).remaining_usd !== '0.00'; i++) await sleep(50);
    t.same(await cycle(), { reserved_usd: CEILING, remaining_usd: '0.00' }, "A's five calls in flight hold the whole ceiling");
    t.equal((await chat(b, held.key, 'probe')).status, 402, 'B refuses the key while A lives');

    gatewayA.kill('SIGKILL');
    t.equal(await gatewayA.exited, null, 'A was killed');
    const killedAt = Date.now();
    await Promise.all(holders);
    await sleep(Math.max(0, killedAt + LEASE_MS + 300 - Date.now()));

    t.same(await cycle(), { reserved_usd: '0.00', remaining_usd: CEILING }, "past the lease, the key's usage shows nothing held");
    const everyKey = (await admin(b, 'GET', '/usage')) as { cycle: Cycle };
    t.equal(everyKey.cycle.reserved_usd, '0.00', 'nor does the usage of every key');
    const table = (await admin(b, 'GET', '/usage/keys')) as {
      data: Array<{ key_id: string; cycle_reserved_usd: string; cycle_upstream_reserved_usd: string }>;
    };
    const row = table.data.find((r) => r.key_id === held.id);
    t.same([row?.cycle_reserved_usd, row?.cycle_upstream_reserved_usd], ['0.00', '0.00'], 'nor the key table');
    t.equal(await backend.reservationsOf('gw-a'), 5, "though A's reservations are still in the store: nothing swept them");

    const five = await Promise.all(Array.from({ length: 5 }, () => chat(b, held.key, 'after [[sim:delay_ms=1500]]')));
    t.same(
      five.map((r) => r.status),
      [200, 200, 200, 200, 200],
      'B admits the key up to its whole ceiling',
    );
    t.equal(await backend.reservationsOf('gw-a'), 0, "the admissions A's ended leases stood in the way of dropped them");
  });
}
