import { readFileSync } from 'node:fs';
import t from 'tap';
import { RESPONSE_STATE } from '../../plugins/ingress-responses/store/state.js';
import { REQUEST_LOG_STATE } from '../../plugins/request-log/store/state.js';
import { RESPONSE_CACHE_STATE } from '../../plugins/response-cache/store/state.js';
import { STATUS_STATE } from '../../plugins/status/store/state.js';
import { SIGNATURE_STATE } from '../../plugins/vendor-beta/store/state.js';
import type { StoreExtension } from '../../src/store/extension.js';
import { UPSTREAM_HEALTH_STATE } from '../../src/upstreams/health-store/state.js';
import { sqliteDatabase } from '../helpers/store-backends.js';

/** docs/scale-out.md's table of tables names each table the code makes, under the owner that makes it. */

/** The doc's rows: owner → its tables. */
function documented(): Map<string, string[]> {
  const doc = readFileSync('docs/scale-out.md', 'utf8');
  const section = doc.slice(doc.indexOf('### Tables and who owns them'));
  const owners = new Map<string, string[]>();
  for (const [, tables, owner] of section.matchAll(/^\| (`[^|]+`) \| `?([a-z-]+)`? \|$/gm)) {
    const names = [...(tables ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1] ?? '');
    owners.set(owner ?? '', [...(owners.get(owner ?? '') ?? []), ...names].sort());
  }
  return owners;
}

t.test('docs/scale-out.md: every table, under the owner whose migrations make it', async (t) => {
  const db = await sqliteDatabase(t);
  const store = await db.open();
  t.teardown(() => store.close());
  const made = new Map<string, string[]>([['core', [...(await db.tables()), 'store_migrations'].sort()]]);
  const states: ReadonlyArray<StoreExtension<object>> = [
    STATUS_STATE,
    RESPONSE_STATE,
    SIGNATURE_STATE,
    UPSTREAM_HEALTH_STATE,
    RESPONSE_CACHE_STATE,
    REQUEST_LOG_STATE,
  ];
  for (const state of states) {
    const before = new Set(await db.tables());
    await store.extend(state);
    made.set(
      state.name,
      (await db.tables()).filter((table) => !before.has(table) && table !== 'store_migrations'),
    );
  }
  t.same(documented(), made);
});
