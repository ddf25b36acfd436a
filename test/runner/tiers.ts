import { readdirSync } from 'node:fs';

/**
 * The test tiers (docs/testing.md): what each runs and what it needs on the machine beyond
 * `npm ci`. `npm test` runs them all in one tap run, so that coverage is one report.
 */

export type TierName = 'unit' | 'e2e' | 'process';

/** What a tier needs installed: checked before it starts (prerequisites.ts). */
export type Prerequisite = 'postgres' | 'chromium' | 'clients';

export interface Tier {
  /** The folders of its test files: each folder's `*.test.ts`, not its subfolders (helpers, a client package's node_modules). */
  dirs: readonly string[];
  needs: readonly Prerequisite[];
  /**
   * How many processes its files share, one after the other in each (in-one-process.ts); absent,
   * a process per file. A file that spawns, kills or measures processes needs its own.
   */
  sharedProcesses?: number;
}

export const TIERS: Readonly<Record<TierName, Tier>> = {
  // No child process, no database server, no gateway boot.
  unit: { dirs: ['test/unit'], needs: [], sharedProcesses: 1 },
  // The gateway in-process on an ephemeral port, with the simulators as its upstreams. Its files
  // mostly wait on sockets, so a few processes side by side finish sooner than one.
  e2e: { dirs: ['test/e2e'], needs: [], sharedProcesses: 4 },
  // Spawned processes, PostgreSQL, Chromium, the real clients (a package of their own), the hardening suites' short form.
  process: { dirs: ['test/process', 'test/process/postgres', 'test/clients', 'test/hardening'], needs: ['postgres', 'chromium', 'clients'] },
};

export const TIER_NAMES = Object.keys(TIERS) as TierName[];

export function isTierName(name: string): name is TierName {
  return (TIER_NAMES as string[]).includes(name);
}

/**
 * A tier's test files: each folder's `*.test.ts`, sorted. Not every script in the folder
 * (test/clients/capture.ts rewrites the captured requests).
 */
export function tierFiles(tier: Tier): string[] {
  return tier.dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.test.ts'))
      .sort()
      .map((name) => `${dir}/${name}`),
  );
}

/** Files dealt in turn to `count` processes, so that neighbours by name (often alike in cost) split. */
export function dealFiles(files: readonly string[], count: number): string[][] {
  const hands = Math.max(1, Math.min(count, files.length));
  return Array.from({ length: hands }, (_, hand) => files.filter((_, index) => index % hands === hand)).filter((hand) => hand.length);
}
