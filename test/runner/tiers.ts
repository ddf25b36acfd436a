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
}

export const TIERS: Readonly<Record<TierName, Tier>> = {
  // No child process, no database server, no gateway boot.
  unit: { dirs: ['test/unit'], needs: [] },
  // The gateway in-process on an ephemeral port, with the simulators as its upstreams.
  e2e: { dirs: ['test/e2e'], needs: [] },
  // Spawned processes, PostgreSQL, Chromium, the real clients (a package of their own), the hardening suites' short form.
  process: { dirs: ['test/process', 'test/process/postgres', 'test/clients', 'test/hardening'], needs: ['postgres', 'chromium', 'clients'] },
};

export const TIER_NAMES = Object.keys(TIERS) as TierName[];

export function isTierName(name: string): name is TierName {
  return (TIER_NAMES as string[]).includes(name);
}

/**
 * What tap is given for a tier: a pattern of test files per folder. Not the folder itself, from
 * which tap would run every script (test/clients/capture.ts, which rewrites the captured requests).
 */
export function testFilePatterns(tier: Tier): string[] {
  return tier.dirs.map((dir) => `${dir}/*.test.ts`);
}
