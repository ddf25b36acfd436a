import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { startPostgresServer, type PostgresServer } from '../../bench/lib/postgres-server.js';
import { RUN_POSTGRES_ENV, runWideAddress, TEST_SETTINGS } from '../helpers/postgres.js';
import { fileTimes, RESULTS_DIR, timeTable } from './file-times.js';
import { missingPrerequisites } from './prerequisites.js';
import { tapFiles } from './shared-processes.js';
import { checksReport, runChecks, runStatus, stopChecks } from './static-checks.js';
import { isTierName, TIERS, type TierName } from './tiers.js';

/**
 * `npm test` and `npm run test:<tier>`: `run.ts [--coverage] [--checks] <tier>...`; --checks also runs
 * the static checks beside the tests (static-checks.ts). Checks the tiers'
 * prerequisites (one line and exit 2 when one is missing), starts one PostgreSQL server for the
 * whole run when a tier needs it (each test file makes fresh databases on it: helpers/postgres.ts),
 * runs the tiers' files in one tap run (coverage only with --coverage: a tier alone is not the
 * floor's whole; the unit and e2e files sharing a few processes, shared-processes.ts), removes the
 * server whatever happens, then prints each file's time.
 */

const RUN_SETTINGS = { ...TEST_SETTINGS, max_connections: '400' };

/**
 * esbuild strips the types of each test process's sources (ts-loader/), a fraction of ts-node's
 * time. tap's TypeScript plugin still preloads ts-node in every test process unless
 * TAP_TYPE_STRIP_ONLY is 1 there; on Node 20 the plugin sets it to 0 in tap's own process, so it
 * is given to the test processes with --test-env, which tap applies after its plugins.
 */
const STRIP_TYPES = ['--node-arg=--import=./test/runner/ts-loader/register.mjs', '--test-env=TAP_TYPE_STRIP_ONLY=1'];

/**
 * Files (processes) run at once: one per core. tap's own default leaves a core free, which on a
 * two-core machine ran the whole suite one file at a time. Two per core failed the process tier's
 * memory and latency bounds (keyless-memory, image-budget-e2e), which measure a quiet machine.
 */
const JOBS = availableParallelism();

const FLAGS = ['--coverage', '--checks'];

function parse(argv: readonly string[]): { tiers: TierName[]; coverage: boolean; checks: boolean } {
  const names = argv.filter((arg) => !FLAGS.includes(arg));
  const unknown = names.filter((name) => !isTierName(name));
  if (unknown.length || !names.length) {
    process.stderr.write(
      `usage: run.ts [--coverage] [--checks] ${Object.keys(TIERS).join('|')}...${unknown.length ? ` (not a tier: ${unknown.join(', ')})` : ''}\n`,
    );
    process.exit(2);
  }
  return { tiers: names.filter(isTierName), coverage: argv.includes('--coverage'), checks: argv.includes('--checks') };
}

let tap: ChildProcess | null = null;
// An interrupt reaches tap (which ends its files) and then the run's end below; before tap is
// started, it ends the runner at once, whose exit hook stops the server.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    stopChecks(signal);
    return tap ? tap.kill(signal) : process.exit(130);
  });
}

function runTap(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, ['node_modules/tap/dist/esm/run.mjs', ...args], { stdio: 'inherit', env });
  tap = child;
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

const { tiers, coverage, checks } = parse(process.argv.slice(2));
const needs = [...new Set(tiers.flatMap((tier) => TIERS[tier].needs))];
const missing = missingPrerequisites(needs);
if (missing) {
  process.stderr.write(`${missing}\n`);
  process.exit(2);
}

const env = { ...process.env };
let server: PostgresServer | null = null;
if (needs.includes('postgres') && !env[RUN_POSTGRES_ENV]) {
  server = await startPostgresServer({ settings: RUN_SETTINGS });
  env[RUN_POSTGRES_ENV] = runWideAddress(server);
}
const dirs = tiers.flatMap((tier) => TIERS[tier].dirs);
const files = tapFiles(tiers.map((tier) => [tier, TIERS[tier]]));
const started = Date.now();
const checked = checks ? runChecks() : Promise.resolve([]);
let status: number;
try {
  status = await runTap([`--jobs=${JOBS}`, ...STRIP_TYPES, ...(coverage ? [] : ['--disable-coverage']), ...files.map((file) => file.path)], env);
} finally {
  await server?.stop();
}
process.stdout.write(`\n${timeTable(fileTimes(RESULTS_DIR, started, dirs))}\n`);
const checkResults = await checked;
if (checkResults.length) process.stdout.write(`\nStatic checks, run beside the tests:\n${checksReport(checkResults)}\n`);
process.exit(runStatus(status, checkResults));
