import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CompactionSeal } from '../../plugins/ingress-responses/compaction-seal.js';
import { openStore } from '../../src/store/open-store.js';

/**
 * The compaction seal: what one load seals every load on the same store opens (the instances of
 * one database share the secret claimed in its settings), and nothing else opens: another
 * store's secret, another key, a byte changed, another envelope.
 */

const dir = mkdtempSync(join(tmpdir(), 'gateway-seal-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('sealed for a key, opened by any load on the same store, and only for that key', async (t) => {
  const store = await openStore({ path: join(dir, 'a.db') });
  t.teardown(() => store.close());
  const first = await CompactionSeal.load(store);
  const second = await CompactionSeal.load(store);
  const sealed = first.seal('key_1', 'The launch is on Tuesday; tell support first. é✓');
  t.match(sealed, /^gwc1\.[A-Za-z0-9_-]+$/);
  t.notOk(sealed.includes('Tuesday'), 'opaque');
  t.not(first.seal('key_1', 'same'), first.seal('key_1', 'same'), 'a fresh nonce each time');
  t.equal(second.open('key_1', sealed), 'The launch is on Tuesday; tell support first. é✓', 'the secret is claimed once: a second load opens it');
  t.equal(second.open('key_2', sealed), null, "another key's");

  const bytes = Buffer.from(sealed.slice(5), 'base64url');
  for (const at of [0, 12, bytes.length - 1]) {
    const altered = Buffer.from(bytes);
    altered[at] = (altered[at] as number) ^ 1;
    t.equal(first.open('key_1', `gwc1.${altered.toString('base64url')}`), null, `a bit flipped at byte ${at}`);
  }
  t.equal(first.open('key_1', sealed.slice(0, 20)), null, 'cut short');
  t.equal(first.open('key_1', 'gAAAAABpZ0x1c29tZXRoaW5nIGVsc2U'), null, "another service's envelope");
});

t.test("another store's secret opens nothing of this one's", async (t) => {
  const a = await openStore({ path: join(dir, 'b.db') });
  const b = await openStore({ path: join(dir, 'c.db') });
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const sealed = (await CompactionSeal.load(a)).seal('key_1', 'summary');
  t.equal((await CompactionSeal.load(b)).open('key_1', sealed), null);
});
