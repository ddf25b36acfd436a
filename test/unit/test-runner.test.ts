import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { fileTimeMs, fileTimes, timeTable } from '../runner/file-times.js';
import { missingPrerequisites, type Machine } from '../runner/prerequisites.js';
import { TIERS } from '../runner/tiers.js';

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
