import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config/load.js';
import { describeDatabase, openStore } from '../../src/store/open-store.js';

/** Which store the configuration opens: database.url / GATEWAY_DATABASE_URL, else the SQLite file (on PostgreSQL: test/process/store-open-postgres.test.ts). */

const dir = mkdtempSync(join(tmpdir(), 'gateway-open-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('GATEWAY_DATABASE_URL sets database.url; anything but a postgres URL is refused with its path', async (t) => {
  t.equal(loadConfig('config/gateway.yaml', {}).config.database.url, undefined, 'unset by default: SQLite');
  for (const url of ['postgres://gw@db:5432/gateway', 'postgresql://gw:secret@db/gateway?sslmode=require']) {
    const { config, overrides } = loadConfig('config/gateway.yaml', { GATEWAY_DATABASE_URL: url });
    t.equal(config.database.url, url);
    t.ok(overrides.includes('GATEWAY_DATABASE_URL'));
  }
  t.throws(() => loadConfig('config/gateway.yaml', { GATEWAY_DATABASE_URL: 'mysql://db/gateway' }), /\/database\/url must match pattern/);
  await t.rejects(openStore({ path: join(dir, 'x.db'), url: 'sqlite:///tmp/x.db' }), /must start with postgres:\/\//);
});

t.test('the start-up log names the database without its password', async (t) => {
  t.equal(describeDatabase({ path: 'data/gateway.db' }), 'data/gateway.db');
  t.equal(describeDatabase({ path: 'x', url: 'postgresql://gw:s3cret@db:5432/gateway' }), 'postgresql://gw:***@db:5432/gateway');
  t.notMatch(describeDatabase({ path: 'x', url: 'postgres://db/gateway?user=gw&password=s3cret' }), /s3cret/);
});

t.test('no url: the SQLite file at database.path', async (t) => {
  const path = join(dir, 'nested', 'gateway.db');
  const store = await openStore({ path });
  t.teardown(() => store.close());
  await store.checkWritable();
  t.ok(existsSync(path));
});

t.test('an unreachable PostgreSQL fails the open, loudly', async (t) => {
  await t.rejects(openStore({ path: join(dir, 'y.db'), url: 'postgresql://nobody@127.0.0.1:1/none' }), /ECONNREFUSED/);
});
