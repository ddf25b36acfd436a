import t from 'tap';
import { chatBody, FakeClock, startHarness, type Harness } from '../helpers/harness.js';

const HOUR = 3600 * 1000;

/** Status of one chat call with a key, and the error message if refused. */
async function attempt(h: Harness, key: string): Promise<{ status: number; message?: string }> {
  const res = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody('gamma-5.4', { max_tokens: 2 }),
  });
  const body = (await res.json()) as { error?: { message: string; code: string } };
  if (res.status === 401 && body.error?.code !== 'invalid_api_key') throw new Error(`401 with code ${body.error?.code}`);
  return { status: res.status, ...(body.error ? { message: body.error.message } : {}) };
}

async function rotate(h: Harness, id: string): Promise<{ key: string; previous_valid_until: string; id: string; status: string }> {
  const res = await h.admin('POST', `/keys/${id}/rotate`);
  if (res.status !== 200) throw new Error(`rotate answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { key: string; previous_valid_until: string; id: string; status: string };
}

t.test('rotation: a new value at once, the old one for 24 hours, then 401', async (t) => {
  const clock = new FakeClock(Date.parse('2026-11-15T12:00:00Z'));
  const h = await startHarness(t, { clock });
  const { id, key: old } = await h.createKey({ name: 'rotating', models: ['gamma-5.4'], monthly_ceiling_usd: '2.00' });

  const rotated = await rotate(h, id);
  t.match(rotated.key, /^sl-[A-Za-z0-9]{32}$/, 'the full new value, once');
  t.not(rotated.key, old);
  t.equal(rotated.id, id, 'same key: same ledger identity');
  t.equal(rotated.previous_valid_until, '2026-11-16T12:00:00.000Z', 'now + 24 h');
  t.match(
    await (await h.admin('GET', `/keys/${id}`)).json(),
    {
      key: `${rotated.key.slice(0, 7)}…${rotated.key.slice(-4)}`,
      models: ['gamma-5.4'],
      monthly_ceiling_usd: '2.00',
      rotated_at: '2026-11-15T12:00:00.000Z',
    },
    'settings kept; the display shows the new value',
  );
  t.notOk((await h.databaseText()).includes(rotated.key), 'the new value is not stored in clear');

  t.equal((await attempt(h, rotated.key)).status, 200, 'the new value works at once');
  t.equal((await attempt(h, old)).status, 200, 'the old value works inside the grace');
  clock.advance(24 * HOUR - 1);
  t.equal((await attempt(h, old)).status, 200, 'the old value works until the last millisecond of the grace');
  clock.advance(1);
  const expired = await attempt(h, old);
  t.equal(expired.status, 401, 'after the grace: 401');
  t.match(expired.message, /rotated; its grace period ended at 2026-11-16T12:00:00.000Z/);
  t.equal((await attempt(h, rotated.key)).status, 200, 'the new value still works');

  // The ledger identity carries over: usage shows the calls made with both values.
  const usage = (await (await fetch(`${h.baseURL}/usage`, { headers: { authorization: `Bearer ${rotated.key}` } })).json()) as {
    key_id: string;
    totals: { requests: number };
  };
  t.equal(usage.key_id, id);
  t.equal(usage.totals.requests, 4, 'calls of the old and the new value');
});

t.test('a second rotation inside the grace: the current value gets its own 24 h, the older one keeps its end', async (t) => {
  const clock = new FakeClock(Date.parse('2026-11-15T00:00:00Z'));
  const h = await startHarness(t, { clock });
  const { id, key: a } = await h.createKey();
  const first = await rotate(h, id); // a → b; a until 11-16T00:00
  const b = first.key;
  clock.advance(12 * HOUR);
  const second = await rotate(h, id); // b → c; b until 11-16T12:00; a not extended
  const c = second.key;
  t.equal(second.previous_valid_until, '2026-11-16T12:00:00.000Z');

  t.same([(await attempt(h, a)).status, (await attempt(h, b)).status, (await attempt(h, c)).status], [200, 200, 200], 'all three inside their windows');
  clock.advance(12 * HOUR); // 11-16T00:00: a's original end
  t.same(
    [(await attempt(h, a)).status, (await attempt(h, b)).status, (await attempt(h, c)).status],
    [401, 200, 200],
    'a ends at its original end, never extended',
  );
  clock.advance(12 * HOUR); // 11-16T12:00
  t.same([(await attempt(h, a)).status, (await attempt(h, b)).status, (await attempt(h, c)).status], [401, 401, 200], 'b ends 24 h after the second rotation');

  const third = await rotate(h, id); // after every grace: only c is retired
  t.same([(await attempt(h, b)).status, (await attempt(h, c)).status, (await attempt(h, third.key)).status], [401, 200, 200]);
});

t.test('the ceiling carries over a rotation', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  const { id, key: old } = await h.createKey({ monthly_ceiling_usd: '0.00001' }); // 10 000 nano-dollars: two calls of 2 tokens
  t.equal((await attempt(h, old)).status, 200);
  const { key } = await rotate(h, id);
  t.equal((await attempt(h, key)).status, 200);
  t.equal((await attempt(h, key)).status, 402, 'spend made with the old value counts against the new one');
  t.equal((await attempt(h, old)).status, 402, 'and against the old value in its grace');
});

t.test('rotation refusals: unknown key, revoked key, no admin token', async (t) => {
  const h = await startHarness(t);
  const { id, key } = await h.createKey();
  const unknown = await h.admin('POST', '/keys/key_unknown/rotate');
  t.equal(unknown.status, 404);
  t.match(await unknown.json(), { error: { type: 'not_found', param: 'id' } });
  const asKey = await fetch(`${h.origin}/admin/v1/keys/${id}/rotate`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
  t.equal(asKey.status, 401, 'an sl- key is no admin token');
  t.equal((await h.admin('POST', `/keys/${id}/revoke`)).status, 200);
  const revoked = await h.admin('POST', `/keys/${id}/rotate`);
  t.equal(revoked.status, 400);
  t.match(await revoked.json(), { error: { type: 'invalid_request', message: /revoked/ } });
  t.equal((await attempt(h, key)).status, 401, 'the revoked key stays refused');
});

t.test('expiry: a key answers 401 from its expires_at on; moving or clearing it brings it back', async (t) => {
  const clock = new FakeClock(Date.parse('2026-11-15T12:00:00Z'));
  const h = await startHarness(t, { clock });
  const { id, key } = await h.createKey({ expires_at: '2026-11-15T13:00:00Z' });
  t.equal((await attempt(h, key)).status, 200);
  clock.advance(HOUR - 1);
  t.equal((await attempt(h, key)).status, 200, 'until the last millisecond');
  clock.advance(1);
  const expired = await attempt(h, key);
  t.equal(expired.status, 401, 'at expires_at: 401');
  t.match(expired.message, 'expired at 2026-11-15T13:00:00.000Z');
  t.equal(((await (await h.admin('GET', `/keys/${id}`)).json()) as { status: string }).status, 'expired');
  const usage = await fetch(`${h.baseURL}/usage`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(usage.status, 401, 'an expired key reads no usage either');

  const { key: rotated } = await rotate(h, id);
  t.equal((await attempt(h, rotated)).status, 401, 'rotating does not lift the expiry: it belongs to the key, not the value');
  t.equal((await h.admin('PATCH', `/keys/${id}`, { expires_at: null })).status, 200);
  t.equal((await attempt(h, rotated)).status, 200, 'cleared: it works again');
});
