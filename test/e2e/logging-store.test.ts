import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import t from 'tap';
import { createLogger } from '../../src/log.js';
import { configureConnection, PAGE_CACHE_KIB, SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { startHarness } from '../helpers/harness.js';

t.test('one log line per request, with the key id and never the key', async (t) => {
  const h = await startHarness(t);
  const { key, id } = await h.createKey();
  await h.client(key).chat.completions.create({ model: 'gamma-5-2', messages: [{ role: 'user', content: 'x' }] });
  await fetch(`${h.baseURL}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}x` }, body: '{}' });
  await new Promise((r) => setTimeout(r, 50));
  const requests = h.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['msg'] === 'request');
  const chat = requests.find((line) => line['path'] === '/v1/chat/completions' && line['status'] === 200);
  t.ok(chat, 'the completion is logged');
  t.equal(chat?.['method'], 'POST');
  t.equal(chat?.['model'], 'gamma-5.2', 'canonical model');
  t.equal(chat?.['key_id'], id, 'key id, not key');
  t.equal(chat?.['outcome'], 'ok');
  t.type(chat?.['latency_ms'], 'number');
  t.type(chat?.['upstream_ms'], 'number');
  t.ok(
    requests.some((line) => line['status'] === 401),
    'refusals are logged too',
  );
  t.notOk(
    h.logs.some((line) => line.includes(key)),
    'no key in any line',
  );
});

t.test('auth headers are redacted wherever they appear in a log object', async (t) => {
  const lines: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write: (chunk: Buffer, _e, done) => {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  log.info({ req: { headers: { authorization: 'Bearer sl-secretsecret', 'x-api-key': 'vendor-secret', 'x-goog-api-key': 'g-secret' } } }, 'debugging');
  log.info({ headers: { authorization: 'Bearer other-secret' }, apiKey: 'cfg-secret' }, 'more');
  const text = lines.join('');
  for (const secret of ['sl-secretsecret', 'vendor-secret', 'g-secret', 'other-secret', 'cfg-secret']) t.notMatch(text, secret);
  t.match(text, /\[redacted\]/);
});

t.test('the gateway connection: WAL, NORMAL sync, foreign keys, a bounded page cache', async (t) => {
  const db = new Database(':memory:');
  t.teardown(() => db.close());
  configureConnection(db);
  t.equal(db.pragma('synchronous', { simple: true }), 1, 'synchronous = NORMAL');
  t.equal(db.pragma('foreign_keys', { simple: true }), 1);
  t.equal(db.pragma('busy_timeout', { simple: true }), 5000);
  // better-sqlite3's own default is 16 MiB, which a growing ledger fills (RSS creep in the soak).
  t.equal(db.pragma('cache_size', { simple: true }), -PAGE_CACHE_KIB);
  t.ok(PAGE_CACHE_KIB < 16000);
});

// Migrations (each recorded once) and the tables are part of the store contract, on both
// backends: test/process/store-contract-keys.test.ts. What is SQLite's own stays here.
t.test('the SQLite store: a WAL file, created with its folder', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'nested', 'gateway.db');
  const store = SqliteStore.open(path);
  await store.checkWritable();
  await store.close();
  const db = new Database(path, { readonly: true });
  t.teardown(() => db.close());
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
});
