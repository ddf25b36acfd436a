import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real clients live in a package of their own, test/clients/package.json, so that the
 * gateway's package never installs them (docs/clients.md#how-the-tests-run-the-clients). A test
 * that needs them asks here first and, when they are not installed at the pinned versions, stops
 * at once with one line that says what to run, instead of failing on a module not found.
 */

/** test/clients/, whatever the working directory. */
export const CLIENTS_DIR = fileURLToPath(new URL('..', import.meta.url));
export const CLIENTS_MODULES = join(CLIENTS_DIR, 'node_modules');
export const INSTALL_CLIENTS = 'npm ci --prefix test/clients';

/** The installed version of a package of test/clients (undefined: not installed). */
export function installedVersion(pkg: string): string | undefined {
  const manifest = join(CLIENTS_MODULES, pkg, 'package.json');
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : undefined;
}

/** One line naming what is missing or at another version, and what to run; null when every pinned client is installed. */
export function clientsMissing(): string | null {
  if (!existsSync(CLIENTS_MODULES)) return `the real clients are not installed (no test/clients/node_modules): run: ${INSTALL_CLIENTS}`;
  const pinned = (JSON.parse(readFileSync(join(CLIENTS_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
  const off = Object.entries(pinned)
    .filter(([pkg, version]) => installedVersion(pkg) !== version)
    .map(([pkg, version]) => `${pkg}@${version}`);
  return off.length
    ? `the real clients in test/clients/node_modules are not the pinned ones (${off.join(', ')} missing or at another version): run: ${INSTALL_CLIENTS}`
    : null;
}

/** The SDK scenarios (sdk-clients.ts, which imports the SDKs), loaded only once the clients are there; null after failing `t` with the one line. */
export async function loadSdkClients(t: { fail(message: string): unknown }): Promise<typeof import('./sdk-clients.js') | null> {
  const missing = clientsMissing();
  if (missing) {
    t.fail(missing);
    return null;
  }
  return import('./sdk-clients.js');
}
