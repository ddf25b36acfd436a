import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import t, { type Test } from 'tap';
import { startPostgresServer } from '../../bench/lib/postgres-server.js';
import { tapFiles } from '../runner/shared-processes.js';
import { checkCommand, runChecks } from '../runner/static-checks.js';
import { TIERS } from '../runner/tiers.js';
import { RUN_POSTGRES_ENV, runWideAddress, startPostgres, TEST_SETTINGS } from '../helpers/postgres.js';

/**
 * The test runner (test/runner/run.ts) as `npm run test:<tier>` starts it, and the run-wide
 * PostgreSQL server the process tier shares (helpers/postgres.ts).
 */

t.test('a tier whose prerequisite is missing stops at once with one line saying what to install', async (t) => {
  const started = Date.now();
  const run = spawnSync(process.execPath, ['--import', './test/runner/ts-loader/register.mjs', 'test/runner/run.ts', 'process'], {
    encoding: 'utf8',
    env: { PATH: '', HOME: process.env['HOME'] ?? '/tmp', CHROMIUM_PATH: '/nonexistent/chromium' },
    timeout: 60_000,
  });
  t.equal(run.status, 2, 'exit status 2');
  t.equal(run.stdout, '', 'no test ran');
  const lines = run.stderr.trim().split('\n');
  t.equal(lines.length, 1, `one line: ${run.stderr}`);
  t.match(lines[0], /apt-get install chromium/);
  t.ok(Date.now() - started < 60_000, 'before any test started');
});

t.test('on the run-wide server a file gets fresh databases, dropped at its end; stopping the server is refused', async (t) => {
  const server = await startPostgresServer({ settings: TEST_SETTINGS });
  t.teardown(() => server.stop());
  const before = process.env[RUN_POSTGRES_ENV];
  process.env[RUN_POSTGRES_ENV] = runWideAddress(server);
  t.teardown(() => (before === undefined ? delete process.env[RUN_POSTGRES_ENV] : (process.env[RUN_POSTGRES_ENV] = before)));

  const teardowns: Array<() => unknown> = [];
  const shared = await startPostgres({ teardown: (fn) => teardowns.push(fn) });
  t.equal(shared.pid, server.pid, 'the same server');
  const [first, second] = [await shared.createDatabase(), await shared.createDatabase()];
  t.not(first, second, 'a fresh database each time');
  const client = new pg.Client({ connectionString: first });
  await client.connect();
  await client.query('CREATE TABLE left_open (id int)');
  t.throws(() => shared.freeze(), /start one of its own/);
  await t.rejects(async () => shared.outage(), /start one of its own/);

  const names = async (): Promise<string[]> => {
    const admin = new pg.Client({ connectionString: `${server.url}/postgres` });
    await admin.connect();
    try {
      return (await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'file_%' ORDER BY datname")).rows.map(
        (r) => r.datname,
      );
    } finally {
      await admin.end();
    }
  };
  t.equal((await names()).length, 2);
  client.on('error', () => undefined);
  for (const fn of teardowns) await fn();
  t.same(await names(), [], 'both dropped at the end, a session still open on one');
  await client.end().catch(() => undefined);

  const own = await startPostgres({ teardown: (fn) => t.teardown(fn) }, { own: true });
  t.not(own.pid, server.pid, 'a file that stops its server gets one of its own');
});

t.test("each tier gives tap exactly its folders' test files, each once, directly or through a shared process's entry", async (t) => {
  const entriesDir = mkdtempSync('.tap/test-runner-entries-');
  t.teardown(() => rmSync(entriesDir, { recursive: true, force: true }));
  for (const [name, tier] of Object.entries(TIERS)) {
    const given = tapFiles([[name, tier]], entriesDir);
    const expected = tier.dirs.flatMap((dir) =>
      readdirSync(dir)
        .filter((file) => file.endsWith('.test.ts'))
        .map((file) => `${dir}/${file}`),
    );
    t.same(given.flatMap((file) => file.runs).sort(), expected.sort(), `${name}: ${expected.length} files, none twice`);
    if (tier.sharedProcesses) t.equal(given.length, Math.min(tier.sharedProcesses, expected.length), `${name}: ${given.length} shared processes`);
    const listed = spawnSync(process.execPath, ['node_modules/tap/dist/esm/run.mjs', 'list', ...given.map((file) => file.path)], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    t.same(listed.stdout.trim().split('\n').sort(), given.map((file) => file.path).sort(), `${name}: tap runs every one of them`);
  }
});

const FIXTURES = 'test/fixtures/in-one-process';

/** The files run one after the other in one process (in-one-process.ts), as a shared process's entry runs them. */
function runInOneProcess(t: Test, files: readonly string[], fileTimeoutMs: number): { status: number | null; stdout: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'in-one-process-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const entry = join(dir, 'entry.mjs');
  const log = join(dir, 'log');
  writeFileSync(log, '');
  writeFileSync(
    entry,
    `import { runInOneProcess } from ${JSON.stringify(resolve('test/runner/in-one-process.ts'))};\nawait runInOneProcess(${JSON.stringify(files)}, ${fileTimeoutMs});\n`,
  );
  const run = spawnSync(process.execPath, ['--import', './test/runner/ts-loader/register.mjs', entry], {
    encoding: 'utf8',
    env: { ...process.env, IN_ONE_PROCESS_LOG: log, TAP: '0' },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, log: readFileSync(log, 'utf8') };
}

t.test("files sharing a process: each file's tests and teardown end before the next file is loaded; each file timed", async (t) => {
  const run = runInOneProcess(t, [`${FIXTURES}/first.ts`, `${FIXTURES}/broken.ts`, `${FIXTURES}/second.ts`], 30_000);
  t.equal(run.log, 'first: imported\nfirst: test\nfirst: teardown\nsecond: imported\nsecond: test\n', 'in order, never overlapping');
  t.match(
    run.stdout,
    /^not ok 2 - test\/fixtures\/in-one-process\/broken\.ts could not be loaded$/m,
    'a file that cannot be loaded fails, and the next one still runs',
  );
  t.same(
    [...run.stdout.matchAll(/^# file (\S+) time=[\d.]+ms$/gm)].map((match) => match[1]),
    [`${FIXTURES}/first.ts`, `${FIXTURES}/broken.ts`, `${FIXTURES}/second.ts`],
  );
  t.equal(run.status, 1, 'the process fails');
});

t.test('a file that hangs in a shared process times out on its own bound, and no file after it runs', async (t) => {
  const started = Date.now();
  const run = runInOneProcess(t, [`${FIXTURES}/hangs.ts`, `${FIXTURES}/second.ts`], 1_000);
  t.match(run.stdout, /expired: test\/fixtures\/in-one-process\/hangs\.ts/, "tap's timeout, naming the file");
  t.equal(run.log, '', 'the next file was never loaded');
  t.not(run.status, 0);
  t.ok(Date.now() - started < 30_000, 'ended well before the process-wide bound');
});

t.test('the static checks run one after the other, niced, each with its output kept', async (t) => {
  const node = (code: string): [string, string[]] => ['nice', ['-n', '19', process.execPath, '-e', code]];
  const started = Date.now();
  const results = await runChecks([
    ['first', node('setTimeout(() => console.log(Date.now()), 300)')],
    ['second', node("console.log(Date.now()); console.log('said'); console.error('and complained'); process.exit(2)")],
    ['missing', ['/nonexistent/check', []]],
  ]);
  t.same(
    results.map((result) => [result.name, result.ok]),
    [
      ['first', true],
      ['second', false],
      ['missing', false],
    ],
  );
  t.match(results[1]?.output, /said\n[\s\S]*and complained/, 'what a failed check printed, stdout and stderr');
  t.match(results[2]?.output, /ENOENT/, 'a check that cannot start fails');
  t.ok(Number(results[1]?.output.split('\n')[0]) >= Number(results[0]?.output.trim()), 'the second began after the first ended');
  t.ok((results[0]?.seconds ?? 0) >= 0.3 && Date.now() - started >= 300, 'timed');
  t.same(checkCommand('lint'), ['nice', ['-n', '19', 'npm', 'run', '--silent', 'lint']], 'an npm script at the lowest priority');
});
