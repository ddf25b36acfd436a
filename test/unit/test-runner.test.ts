import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { fileTimeMs, fileTimes, sharedFileTimes, timeTable } from '../runner/file-times.js';
import { missingPrerequisites, type Machine } from '../runner/prerequisites.js';
import { missingPaths, readDoc, section } from '../helpers/doc-facts.js';
import { ENTRIES_DIR, FILE_TIMEOUT_MS } from '../runner/shared-processes.js';
import { checksReport, runStatus, STATIC_CHECKS } from '../runner/static-checks.js';
import { dealFiles, TIERS } from '../runner/tiers.js';

/** The test runner's own parts (test/runner): the prerequisite check and the per-file time table. */

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-runner-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function executable(path: string): string {
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

t.test('a machine without PostgreSQL and Chromium: one line naming both packages to install', async (t) => {
  const empty = tempDir(t);
  const bare: Machine = { postgres: { path: empty, debianRoot: join(empty, 'postgresql') }, chromium: join(empty, 'chromium') };
  const line = missingPrerequisites(['postgres', 'chromium'], bare);
  t.type(line, 'string');
  t.notMatch(line, /\n/, 'one line');
  t.match(line, /apt-get install postgresql/);
  t.match(line, /apt-get install chromium/);
  t.match(missingPrerequisites(['chromium'], bare), /^Cannot run these tests: Chromium not found at .*chromium /, 'only what is missing is named');
  t.equal(missingPrerequisites([], bare), null, 'a tier that needs nothing always runs');
});

t.test('the binaries where they are looked for: nothing is missing', async (t) => {
  const dir = tempDir(t);
  executable(join(dir, 'initdb'));
  executable(join(dir, 'pg_ctl'));
  const onPath: Machine = { postgres: { path: dir, debianRoot: join(dir, 'none') }, chromium: executable(join(dir, 'chromium')) };
  t.equal(missingPrerequisites(['postgres', 'chromium'], onPath), null, 'initdb and pg_ctl on PATH, Chromium at its path');
  const debian = tempDir(t);
  for (const version of ['15', '17']) {
    const bin = join(debian, version, 'bin');
    mkdirSync(bin, { recursive: true });
    executable(join(bin, 'initdb'));
    executable(join(bin, 'pg_ctl'));
  }
  t.equal(missingPrerequisites(['postgres'], { postgres: { path: '', debianRoot: debian }, chromium: '' }), null, "Debian's versioned folders, PATH empty");
});

const FILE_TAP = `TAP version 14
# Subtest: one
    ok 1 - inner
    1..1
    # time=12.5ms
ok 1 - one # time=12.5ms

1..1
# time=1234.5ms
`;

t.test("a file's time is its last top-level time line; a file cut short has none", async (t) => {
  t.equal(fileTimeMs(FILE_TAP), 1234.5);
  t.equal(fileTimeMs('TAP version 14\n# Subtest: one\n    # time=3ms\n'), null);
});

t.test("the table lists the run's files written since it began, slowest first, cut-short files on top", async (t) => {
  const dir = tempDir(t);
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  mkdirSync(join(dir, 'test', 'unit'), { recursive: true });
  write('test/unit/fast.test.ts.tap', FILE_TAP.replace('1234.5ms\n', '200ms\n'));
  write('test/unit/slow.test.ts.tap', FILE_TAP);
  write('test/unit/killed.test.ts.tap', 'TAP version 14\n');
  mkdirSync(join(dir, 'test', 'e2e'), { recursive: true });
  write('test/e2e/another-run.test.ts.tap', FILE_TAP);
  const stale = write('test/unit/earlier.test.ts.tap', FILE_TAP);
  const since = Date.now() - 60_000;
  utimesSync(stale, new Date(since - 1000), new Date(since - 1000));
  const times = fileTimes(dir, since, ['test/unit']);
  t.same(times, [
    { file: 'test/unit/killed.test.ts', ms: null },
    { file: 'test/unit/slow.test.ts', ms: 1234.5 },
    { file: 'test/unit/fast.test.ts', ms: 200 },
  ]);
  t.equal(
    timeTable(times),
    [
      'Time per test file, slowest first (3 files, 1.4 s summed; files run in parallel):',
      '     n/a  test/unit/killed.test.ts',
      '   1.2 s  test/unit/slow.test.ts',
      '   0.2 s  test/unit/fast.test.ts',
    ].join('\n'),
  );
});

t.test('every test file is in the folder of a tier, so that npm test runs it', async (t) => {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.name === 'node_modules' ? [] : entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.test.ts') ? [join(dir, entry.name)] : [],
    );
  const testFiles = walk('test');
  const folders = Object.values(TIERS).flatMap((tier) => tier.dirs);
  t.ok(testFiles.length > 100, `${testFiles.length} test files`);
  t.same(
    testFiles.filter((file) => !folders.some((folder) => file.startsWith(`${folder}/`))),
    [],
  );
});

t.test('files are dealt to the shared processes in turn, never to an empty one', async (t) => {
  t.same(dealFiles(['a', 'b', 'c', 'd', 'e'], 2), [
    ['a', 'c', 'e'],
    ['b', 'd'],
  ]);
  t.same(dealFiles(['a', 'b'], 4), [['a'], ['b']], 'more processes than files: one file each');
  t.same(dealFiles(['a', 'b'], 0), [['a', 'b']], 'at least one process');
  t.same(dealFiles([], 3), [], 'no files, no process');
});

const SHARED_TAP = `TAP version 14
# Subtest: first
    ok 1 - inner
    1..1
ok 1 - first # time=10ms

# file test/e2e/a.test.ts time=1500ms
# Subtest: second
    ok 1 - inner
    1..1
ok 2 - second # time=3ms

# file test/e2e/b.test.ts time=300.5ms
1..2
# time=1810ms
`;

t.test("a shared process's files each have their own time; one cut short lists what it finished, then itself", async (t) => {
  t.same(sharedFileTimes(SHARED_TAP), [
    { file: 'test/e2e/a.test.ts', ms: 1500 },
    { file: 'test/e2e/b.test.ts', ms: 300.5 },
  ]);
  const dir = tempDir(t);
  mkdirSync(join(dir, ENTRIES_DIR), { recursive: true });
  writeFileSync(join(dir, ENTRIES_DIR, 'e2e-1.test.mjs.tap'), SHARED_TAP);
  const cut = SHARED_TAP.slice(0, SHARED_TAP.indexOf('# Subtest: second'));
  writeFileSync(join(dir, ENTRIES_DIR, 'e2e-2.test.mjs.tap'), cut.replace('test/e2e/a.test.ts', 'test/e2e/c.test.ts'));
  t.same(fileTimes(dir, Date.now() - 60_000, ['test/e2e']), [
    { file: `${ENTRIES_DIR}/e2e-2.test.mjs`, ms: null },
    { file: 'test/e2e/a.test.ts', ms: 1500 },
    { file: 'test/e2e/c.test.ts', ms: 1500 },
    { file: 'test/e2e/b.test.ts', ms: 300.5 },
  ]);
});

t.test('docs/testing.md: the shared processes of each tier, the file bound and the jobs, as the runner has them', async (t) => {
  const page = section(readDoc('testing.md'), 'Processes: shared in the unit and e2e tiers, one per file in the process tier');
  const words = ['none', 'one', 'two', 'three', 'four', 'five', 'six'];
  t.match(page, `one for unit`, 'unit');
  t.equal(TIERS.unit.sharedProcesses, 1);
  t.match(page, `${words[TIERS.e2e.sharedProcesses ?? 0]} for e2e`, 'e2e');
  t.equal(TIERS.process.sharedProcesses, undefined, 'the process tier: a process per file');
  t.match(page, `its own ${FILE_TIMEOUT_MS / 1000}-second bound`);
  t.equal(JSON.parse(readFileSync('package.json', 'utf8')).tap.timeout * 1000, FILE_TIMEOUT_MS, "tap's own bound for a file in a process of its own");
  t.same(missingPaths(page), [], 'every path it names exists');
});

t.test('the static checks beside the tests: a line each, a failed one with its output; the run fails when one does', async (t) => {
  const results = [
    { name: 'typecheck', ok: true, seconds: 21.44, output: 'quiet\n' },
    { name: 'lint', ok: false, seconds: 70, output: 'src/x.ts\n  1:1  error  no\n\n' },
  ];
  t.equal(checksReport(results), 'passed  typecheck (21.4 s)\nFAILED  lint (70.0 s)\nsrc/x.ts\n  1:1  error  no');
  t.equal(runStatus(0, results), 1, 'the tests passed, a check failed');
  t.equal(runStatus(0, results.slice(0, 1)), 0);
  t.equal(runStatus(3, results.slice(0, 1)), 3, "tap's own failure first");
  t.equal(runStatus(0, []), 0, 'no checks asked for');
  t.same(STATIC_CHECKS, ['typecheck', 'format:check', 'lint']);
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  for (const name of STATIC_CHECKS) t.type(scripts[name], 'string', `npm run ${name} exists`);
  t.match(scripts['test'], /--checks/, 'npm test runs them');
});
