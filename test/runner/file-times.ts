import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ENTRIES_DIR } from './shared-processes.js';

/**
 * Each test file's time, from what tap keeps of a run: one TAP file per process under
 * `.tap/test-results/`. A file run in a process of its own has the last `# time=` line of its
 * results; files that shared one have a `# file <path> time=<ms>ms` line each (in-one-process.ts),
 * and a shared process cut short is listed by its entry. The table is printed slowest first at the
 * end of a run, since the slow files are where the run's time goes.
 */

export const RESULTS_DIR = '.tap/test-results';

export interface FileTime {
  file: string;
  /** null: the file ended without tap's closing time (killed, timed out). */
  ms: number | null;
}

function tapFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? tapFiles(join(dir, entry.name)) : entry.name.endsWith('.tap') ? [join(dir, entry.name)] : []));
}

/** The time of a file from its TAP output: the last top-level `# time=` line. */
export function fileTimeMs(tap: string): number | null {
  const times = [...tap.matchAll(/^# time=([\d.]+)ms$/gm)];
  const last = times.at(-1);
  return last ? Number(last[1]) : null;
}

/** The times of the files a shared process ran, from their `# file` lines. */
export function sharedFileTimes(tap: string): FileTime[] {
  return [...tap.matchAll(/^# file (\S+) time=([\d.]+)ms$/gm)].map((match) => ({ file: match[1] ?? '', ms: Number(match[2]) }));
}

const isSharedEntry = (file: string): boolean => file.startsWith(`${ENTRIES_DIR}/`);

function timesOfResult(file: string, tap: string): FileTime[] {
  const ms = fileTimeMs(tap);
  if (!isSharedEntry(file)) return [{ file, ms }];
  return ms === null ? [...sharedFileTimes(tap), { file, ms }] : sharedFileTimes(tap);
}

/** The files in `dirs` of the run that started at `sinceMs` (results written since), slowest first. */
export function fileTimes(resultsDir: string, sinceMs: number, dirs: readonly string[]): FileTime[] {
  return tapFiles(resultsDir)
    .filter((path) => statSync(path).mtimeMs >= sinceMs)
    .flatMap((path) => timesOfResult(relative(resultsDir, path).replace(/\.tap$/, ''), readFileSync(path, 'utf8')))
    .filter(({ file }) => isSharedEntry(file) || dirs.some((dir) => file.startsWith(`${dir}/`)))
    .sort((a, b) => (b.ms ?? Infinity) - (a.ms ?? Infinity));
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`.padStart(8);

/** The table: one line per file, slowest first, then the sum. */
export function timeTable(times: readonly FileTime[]): string {
  const lines = times.map(({ file, ms }) => `${ms === null ? '     n/a' : seconds(ms)}  ${file}`);
  const total = times.reduce((sum, { ms }) => sum + (ms ?? 0), 0);
  return [`Time per test file, slowest first (${times.length} files, ${seconds(total).trim()} summed; files run in parallel):`, ...lines].join('\n');
}
