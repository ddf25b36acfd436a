import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import t from 'tap';
import { startPostgresServer } from '../../bench/lib/postgres-server.js';
import { testFilePatterns, TIERS } from '../runner/tiers.js';
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

t.test("each tier gives tap exactly its folders' test files: no helper, no script, nothing in a package", async (t) => {
  for (const [name, tier] of Object.entries(TIERS)) {
    const listed = spawnSync(process.execPath, ['node_modules/tap/dist/esm/run.mjs', 'list', ...testFilePatterns(tier)], { encoding: 'utf8', timeout: 60_000 });
    const expected = tier.dirs.flatMap((dir) =>
      readdirSync(dir)
        .filter((file) => file.endsWith('.test.ts'))
        .map((file) => `${dir}/${file}`),
    );
    t.same(listed.stdout.trim().split('\n').sort(), expected.sort(), `${name}: ${expected.length} files`);
  }
});
