import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDashboard } from '../../src/dashboard/build.js';
import { startHarness, type Harness } from './harness.js';

/** A gateway whose `dashboard` plugin serves a fresh build of the page (removed after the test), with `config` beside its assets. */
export async function dashboardHarness(t: { teardown(fn: () => unknown): void }, config: Record<string, unknown> = {}): Promise<Harness> {
  const assets = mkdtempSync(join(tmpdir(), 'dashboard-assets-'));
  t.teardown(() => rmSync(assets, { recursive: true, force: true }));
  await buildDashboard(assets);
  return startHarness(t, {
    configure: (gateway) => {
      const entry = gateway.plugins.find((p) => p.name === 'dashboard');
      if (entry) entry.config = { assets_dir: assets, ...config };
    },
  });
}
