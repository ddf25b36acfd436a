import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { openStore } from '../../src/store/open-store.js';
import { startPostgres } from '../helpers/postgres.js';

/** A postgres URL opens the PostgreSQL store (the other choices: test/unit/store-open.test.ts). */

const dir = mkdtempSync(join(tmpdir(), 'gateway-open-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('a postgres url: PostgreSQL, and no SQLite file', async (t) => {
  const server = await startPostgres(t);
  const url = await server.createDatabase();
  const path = join(dir, 'never.db');
  const store = await openStore({ path, url }, { poolSize: 2 });
  t.teardown(() => store.close());
  await store.settings.set('where', 'postgres');
  t.notOk(existsSync(path), 'the SQLite path is not touched');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  t.same((await client.query('SELECT value FROM settings')).rows, [{ value: 'postgres' }], 'the row is in PostgreSQL');
});
