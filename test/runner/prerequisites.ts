import { accessSync, constants } from 'node:fs';
import { POSTGRES_MISSING, postgresBinDir, type PostgresSearch } from '../../bench/lib/postgres-server.js';
import { claudeBinary, codexBinary } from '../clients/helpers/cli-clients.js';
import { clientsMissing } from '../clients/helpers/installed.js';
import { CHROMIUM_PATH } from '../helpers/browser.js';
import type { Prerequisite } from './tiers.js';

/**
 * Whether what a tier needs beyond `npm ci` is installed: PostgreSQL's server binaries, Chromium,
 * the real clients with their native binaries. A tier that lacks one stops before its first test
 * with one line saying what to install, instead of failing test after test further on.
 */

/** Where to look; the defaults are this machine's (a test points them at empty places). */
export interface Machine {
  postgres: PostgresSearch;
  chromium: string;
}

export const THIS_MACHINE: Machine = {
  postgres: { path: process.env['PATH'] ?? '', debianRoot: '/usr/lib/postgresql' },
  chromium: CHROMIUM_PATH,
};

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why the real clients cannot run, or null. */
function clientsProblem(): string | null {
  const codex = codexBinary();
  const claude = claudeBinary();
  return clientsMissing() ?? ('missing' in codex ? codex.missing : null) ?? ('missing' in claude ? claude.missing : null);
}

function problem(need: Prerequisite, machine: Machine): string | null {
  switch (need) {
    case 'postgres':
      return postgresBinDir(machine.postgres) ? null : POSTGRES_MISSING;
    case 'chromium':
      return executable(machine.chromium)
        ? null
        : `Chromium not found at ${machine.chromium} (the dashboard and status pages are tested in it): install Debian's package "chromium" (apt-get install chromium) or set CHROMIUM_PATH; .ci/run does.`;
    case 'clients':
      return clientsProblem();
  }
}

/** One line naming everything missing for `needs`, or null when all is there. */
export function missingPrerequisites(needs: readonly Prerequisite[], machine: Machine = THIS_MACHINE): string | null {
  const problems = needs.map((need) => problem(need, machine)).filter((line): line is string => line !== null);
  return problems.length ? `Cannot run these tests: ${problems.join(' — and ')}` : null;
}
