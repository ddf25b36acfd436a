import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { compiledGateway } from '../../helpers/compiled-gateway.js';
import { admin, gatewayProcesses } from '../../helpers/gateway-processes.js';
import type { SpawnedGateway } from '../../helpers/spawn-gateway.js';
import type { LedgerView } from './ledger-view.js';
import { MixedLoad, type LoadKey, type SentCall } from './mixed-load.js';
import { SEED, seededRandom } from './scale.js';

/**
 * `kill -9` cycles under mixed load: two gateway processes (instances a and b) on one database,
 * six callers spread over them, and in each cycle one of them killed at a random moment and
 * restarted under its instance id. After each restart: every call a caller saw answered has its
 * ledger row; the dead instance holds no reservation any more; each key's spend equals the sum
 * of its rows and stays within its ceiling. The seed (HARDENING_SEED) replays the choices.
 */

const WORKERS = 6;
/** The capped key's ceiling: about 22 alpha-opus calls of 12 tokens. */
const CEILING_USD = '0.002';
const NANO_PER_USD = 1e9;
type Instance = 'a' | 'b';

/** Where the processes keep their ledger: env for them, and a view of it for the checks. */
export interface Backend {
  env: Record<string, string>;
  cycles: number;
  /** A view of the database; `sqlite` is the file gatewayProcesses made (unused on PostgreSQL). */
  open(sqlite: string): Promise<LedgerView>;
}

/** Runs `fn` with a fresh view of the ledger. */
async function withLedger<T>(backend: Backend, db: string, fn: (view: LedgerView) => Promise<T>): Promise<T> {
  const view = await backend.open(db);
  try {
    return await fn(view);
  } finally {
    await view.close();
  }
}

/** What the ledger must show for the calls so far; returns the number of answered calls checked. */
async function checkLedger(t: Test, view: LedgerView, calls: readonly SentCall[], cycle: number): Promise<number> {
  const rows = await view.okRows();
  const answered = calls.filter((call) => call.answered);
  const missing = answered.filter((call) => !rows.has(`${call.keyId} ${call.promptTokens}`));
  t.same(missing, [], `cycle ${cycle}: each of the ${answered.length} answered calls has its row`);
  for (const spend of await view.spend()) {
    t.same(
      [spend.spent_nano, spend.upstream_nano],
      [spend.rows_nano, spend.rows_upstream_nano],
      `cycle ${cycle}: key ${spend.key_id} spent the sum of its rows, charged and upstream`,
    );
  }
  return answered.length;
}

export async function killCycles(t: Test, backend: Backend): Promise<void> {
  const random = seededRandom(SEED);
  const { db, start } = await gatewayProcesses(t, 10, await compiledGateway());
  const launch = (instance: Instance): SpawnedGateway => start({ ...backend.env, GATEWAY_INSTANCE_ID: instance });
  const processes: Record<Instance, SpawnedGateway> = { a: launch('a'), b: launch('b') };
  const origins: Record<Instance, string> = { a: await processes.a.ready, b: await processes.b.ready };
  const create = (settings: Record<string, unknown>): Promise<LoadKey> => admin(origins.a, 'POST', '/keys', { name: 'load', ...settings }) as Promise<LoadKey>;
  const keys = {
    open: await create({ monthly_ceiling_usd: '1000.00' }),
    capped: await create({ monthly_ceiling_usd: CEILING_USD }),
    scoped: await create({ models: ['gamma-5.2'] }),
  };
  const alive = new Set<Instance>(['a', 'b']);
  const load = new MixedLoad(keys, () => [...alive].map((instance) => origins[instance]), random);

  for (let cycle = 1; cycle <= backend.cycles; cycle++) {
    const traffic = load.start(WORKERS);
    const victim: Instance = random() < 0.5 ? 'a' : 'b';
    const after = Math.round(300 + random() * 1700);
    await sleep(after);
    alive.delete(victim);
    processes[victim].kill('SIGKILL');
    await processes[victim].exited;
    const held = await withLedger(backend, db, (view) => view.reservations(victim));
    processes[victim] = launch(victim);
    origins[victim] = await processes[victim].ready;
    const left = await withLedger(backend, db, (view) => view.reservations(victim));
    t.equal(left, 0, `cycle ${cycle}: ${victim} killed after ${after} ms holding ${held} reservation(s); none left after its restart`);
    alive.add(victim);
    await sleep(300);
    await traffic.stop();
    await withLedger(backend, db, (view) => checkLedger(t, view, load.calls, cycle));
  }

  for (const instance of ['a', 'b'] as const) {
    processes[instance].kill('SIGTERM');
    t.equal(await processes[instance].exited, 0, `${instance} stops cleanly`);
  }
  const answered = await withLedger(backend, db, async (view) => {
    t.equal(await view.reservations(), 0, 'no reservation at all once both stopped');
    const capped = (await view.spend()).find((spend) => spend.key_id === keys.capped.id);
    t.ok((capped?.spent_nano ?? 0) <= Number(CEILING_USD) * NANO_PER_USD, `the capped key spent ${capped?.spent_nano ?? 0} nano-USD, within its ceiling`);
    return checkLedger(t, view, load.calls, backend.cycles + 1);
  });
  const by = (test: (call: SentCall) => boolean): number => load.calls.filter(test).length;
  t.ok(by((call) => call.status === 402) > 0 && by((call) => call.status === 403) > 0, 'the capped key ran into its ceiling; the scoped key was refused');
  t.comment(
    `${backend.cycles} cycles, ${load.calls.length} calls: ${answered} answered, ${by((call) => call.refused)} refused, ${by((call) => !call.answered && !call.refused)} cut by a kill or failed`,
  );
}
