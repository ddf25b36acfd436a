import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { dealFiles, tierFiles, type Tier } from './tiers.js';

/**
 * What tap is given for a tier whose files share processes (`Tier.sharedProcesses`): one entry
 * file per process, written for the run, each importing its share of the files in order
 * (in-one-process.ts). A process per test file spends about a second of CPU before the file's
 * first test (Node, the loader hooks, tap's plugins, the gateway's modules), which was most of the
 * unit and e2e tiers' time. A tier without it is given its files as they are.
 */

/** How long one file may run, shared process or not (tap's `timeout` in package.json). */
export const FILE_TIMEOUT_MS = 120_000;

/** Inside `.tap/`, which tap keeps out of coverage and git ignores. */
export const ENTRIES_DIR = '.tap/shared-processes';

const RUNNER = new URL('./in-one-process.ts', import.meta.url).pathname;

function entrySource(files: readonly string[]): string {
  return `import { runInOneProcess } from ${JSON.stringify(RUNNER)};\nawait runInOneProcess(${JSON.stringify(files)});\n`;
}

/** A file tap runs (a process), and the test files it runs. */
export interface TapFile {
  path: string;
  runs: string[];
}

/** The files tap runs for these tiers: their test files, or entries sharing a process, written to `entriesDir`. */
export function tapFiles(tiers: ReadonlyArray<[name: string, tier: Tier]>, entriesDir: string = ENTRIES_DIR): TapFile[] {
  rmSync(entriesDir, { recursive: true, force: true });
  return tiers.flatMap(([name, tier]) => {
    const files = tierFiles(tier);
    if (!tier.sharedProcesses) return files.map((file) => ({ path: file, runs: [file] }));
    mkdirSync(entriesDir, { recursive: true });
    return dealFiles(files, tier.sharedProcesses).map((hand, index) => {
      const entry = join(entriesDir, `${name}-${index + 1}.test.mjs`);
      writeFileSync(entry, entrySource(hand));
      return { path: relative('.', entry), runs: hand };
    });
  });
}
