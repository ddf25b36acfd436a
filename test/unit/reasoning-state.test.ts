import t from 'tap';
import { ReasoningSeal } from '../../src/neutral/reasoning-state.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { TEST_SEAL } from '../helpers/reasoning-seal.js';

/**
 * The reasoning-state envelope (docs/deployments.md#affinity-and-sealed-reasoning-state): sealed
 * for a key with the deployment that issued it; nothing else opens as one — another key, another
 * store's secret, a byte changed — and a legacy `gw1.` envelope still reads, naming no deployment.
 */

const STATE = { family: 'alpha', kind: 'signature', data: 'EqQBCkYIBxgCKkA…+/=' };

t.test('a state survives its seal, for its key only, with the deployment that issued it', async (t) => {
  const envelope = TEST_SEAL.seal('key_1', STATE, 'east');
  t.match(envelope, /^gw2\.[A-Za-z0-9_-]+$/, 'one opaque, URL-safe string');
  t.notOk(envelope.includes('EqQB') || Buffer.from(envelope.slice(4), 'base64url').toString('latin1').includes('alpha'), 'nothing of the state can be read');
  t.same(TEST_SEAL.open('key_1', envelope), { ...STATE, deployment: 'east' });
  t.equal(TEST_SEAL.open('key_2', envelope), 'unverified', "another key's");
  const other = await ReasoningSeal.load(SqliteStore.open(':memory:').settings);
  t.equal(other.open('key_1', envelope), 'unverified', "another store's secret");
  const bytes = Buffer.from(envelope.slice(4), 'base64url');
  for (const at of [0, 12, bytes.length - 1]) {
    const altered = Buffer.from(bytes);
    altered[at] = (altered[at] as number) ^ 1;
    t.equal(TEST_SEAL.open('key_1', `gw2.${altered.toString('base64url')}`), 'unverified', `a bit flipped at byte ${at}`);
  }
  t.equal(TEST_SEAL.open('key_1', envelope.slice(0, 20)), 'unverified', 'cut short');
});

t.test('a legacy gw1. envelope reads as unsealed, naming no deployment; any other text is not an envelope', async (t) => {
  const legacy = `gw1.${Buffer.from(JSON.stringify(['beta', 'thought_signature', 'CpwB'])).toString('base64url')}`;
  t.same(TEST_SEAL.open('any', legacy), { family: 'beta', kind: 'thought_signature', data: 'CpwB' });
  for (const damaged of ['gw1.', 'gw1.not-base64-json', `gw1.${Buffer.from('[1,2,3]').toString('base64url')}`]) {
    t.equal(TEST_SEAL.open('any', damaged), 'unverified', `damaged: ${damaged}`);
  }
  for (const other of ['EqQBCkYIBxgCKkA', 'gwc1.abc', 'skip_thought_signature_validator'])
    t.equal(TEST_SEAL.open('any', other), null, `not an envelope: ${other}`);
});
