import t from 'tap';
import { RECENT_KEYS_LIMIT, RECENT_KEYS_MS, RecentKeys } from '../../src/store/recent-keys.js';
import type { KeyRecord, KeyStore, KeyValueMatch } from '../../src/store/store.js';

/** The one-second memory of key lookups, around a scripted KeyStore and a hand-moved clock. */

const record = (id: string): KeyRecord => ({
  id,
  name: id,
  models: null,
  monthlyCeilingNanos: null,
  monthlyUpstreamLimitNanos: null,
  status: 'active',
  expiresAt: null,
  createdAt: 0,
  updatedAt: 0,
  revokedAt: null,
  rotatedAt: null,
  previousValidUntil: null,
  display: 'sl-…',
  rpmLimit: null,
  cacheTtlS: null,
});

/** Answers every hash but `unknown`, counting lookups; `hold()` makes the next lookup wait for `release()`. */
class ScriptedKeys implements KeyStore {
  lookups = 0;
  private held: Array<() => void> | null = null;
  hold(): void {
    this.held = [];
  }
  release(): void {
    for (const resume of this.held ?? []) resume();
    this.held = null;
  }
  async findByValueHash(hash: Buffer): Promise<KeyValueMatch | undefined> {
    this.lookups += 1;
    if (this.held) await new Promise<void>((resolve) => this.held?.push(resolve));
    if (hash.toString() === 'unknown') return undefined;
    return { key: record(`key_${hash.toString()}`), valueHash: hash, validUntil: null };
  }
  create = async (): Promise<KeyRecord> => record('key_new');
  get = async (): Promise<KeyRecord | undefined> => undefined;
  list = async (): Promise<KeyRecord[]> => [];
  count = async (): Promise<number> => 0;
  update = async (): Promise<KeyRecord | undefined> => undefined;
  revoke = async (): Promise<KeyRecord | undefined> => undefined;
  rotate = async (): Promise<KeyRecord | undefined> => undefined;
}

function setup(): { inner: ScriptedKeys; keys: RecentKeys; clock: { ms: number } } {
  const inner = new ScriptedKeys();
  const clock = { ms: 1_000_000 };
  return { inner, keys: new RecentKeys(inner, () => clock.ms), clock };
}

const hash = (text: string): Buffer => Buffer.from(text);

t.test('an answer is remembered for one second; unknown values are not remembered', async (t) => {
  const { inner, keys, clock } = setup();
  const first = await keys.findByValueHash(hash('a'));
  t.same(await keys.findByValueHash(hash('a')), first);
  t.equal(inner.lookups, 1, 'the second lookup came from memory');
  clock.ms += RECENT_KEYS_MS - 1;
  await keys.findByValueHash(hash('a'));
  t.equal(inner.lookups, 1, 'still within the second');
  clock.ms += 1;
  await keys.findByValueHash(hash('a'));
  t.equal(inner.lookups, 2, 'asked again once the second is over');
  await keys.findByValueHash(hash('unknown'));
  await keys.findByValueHash(hash('unknown'));
  t.equal(inner.lookups, 4, 'an unknown value is asked every time');
});

t.test('every key change through the wrapper forgets at once', async (t) => {
  const { inner, keys } = setup();
  const rotation = { valueHash: hash('n'), display: 'd', now: 0, previousValidUntil: 1 };
  const changes: Array<[string, () => Promise<unknown>]> = [
    ['create', () => keys.create({ name: 'n', models: null, monthlyCeilingNanos: null, expiresAt: null, valueHash: hash('n'), display: 'd', now: 0 })],
    ['update', () => keys.update('key_a', { name: 'x' }, 0)],
    ['revoke', () => keys.revoke('key_a', 0)],
    ['rotate', () => keys.rotate('key_a', rotation)],
  ];
  for (const [name, change] of changes) {
    await keys.findByValueHash(hash('a'));
    const before = inner.lookups;
    await change();
    await keys.findByValueHash(hash('a'));
    t.equal(inner.lookups, before + 1, `${name} forgets`);
  }
});

t.test('a lookup that overlaps a change is not remembered', async (t) => {
  const { inner, keys } = setup();
  inner.hold();
  const lookup = keys.findByValueHash(hash('a'));
  await keys.revoke('key_a', 0); // the answer in flight may predate this change
  inner.release();
  await lookup;
  await keys.findByValueHash(hash('a'));
  t.equal(inner.lookups, 2, 'asked again after the change');
});

t.test('lookups of one value while one is in flight share it, unless a change came in between', async (t) => {
  const { inner, keys } = setup();
  inner.hold();
  const burst = [keys.findByValueHash(hash('a')), keys.findByValueHash(hash('a')), keys.findByValueHash(hash('b'))];
  await keys.revoke('key_a', 0);
  const after = keys.findByValueHash(hash('a'));
  inner.release();
  const [first, second, other] = await Promise.all(burst);
  t.equal(first, second, 'the same answer');
  t.equal(other?.key.id, 'key_b');
  t.equal((await after)?.key.id, 'key_a');
  t.equal(inner.lookups, 3, 'a, b, and a again after the change');
});

t.test(`at most ${RECENT_KEYS_LIMIT} values are remembered`, async (t) => {
  const { inner, keys } = setup();
  for (let i = 0; i < RECENT_KEYS_LIMIT; i++) await keys.findByValueHash(hash(`v${i}`));
  await keys.findByValueHash(hash('v0'));
  t.equal(inner.lookups, RECENT_KEYS_LIMIT, 'all of them remembered up to the limit');
  await keys.findByValueHash(hash('one more'));
  await keys.findByValueHash(hash('v1'));
  t.equal(inner.lookups, RECENT_KEYS_LIMIT + 2, 'the next one starts the memory over');
});
