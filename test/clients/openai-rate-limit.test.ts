import t from 'tap';
import type { Clock } from '../../src/clock.js';
import { startHarness } from '../helpers/harness.js';
import { clientsMissing } from './helpers/installed.js';

/**
 * The rate cap as the official `openai` client (test/clients' pinned 6.x) sees it
 * (docs/api-contract.md#rate-limit-headers): the headroom headers read through `.withResponse()`,
 * and its own retry waiting out our 429's `Retry-After` before trying again (the client reads
 * `retry-after-ms` and `retry-after`; it reads no `x-ratelimit-*`: they are for the application).
 */

/** The real clock, `skewMs` ahead: a test moves a key's window on without waiting a minute. */
class SkewedClock implements Clock {
  skewMs = 0;
  now(): number {
    return Date.now() + this.skewMs;
  }
}

const missing = clientsMissing();
if (missing) t.fail(missing);
else {
  const { default: OpenAI } = await import('openai');
  t.test('the openai client: the headers through withResponse(), and its retry honouring our Retry-After', async (t) => {
    const clock = new SkewedClock();
    const h = await startHarness(t, { clock });
    const { key } = await h.createKey({ rpm_limit: 2 });
    const statuses: number[] = [];
    const counted: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    };
    const client = new OpenAI({ baseURL: h.baseURL, apiKey: key, maxRetries: 2, fetch: counted });
    const ask = () => client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hello' }] }).withResponse();

    const first = await ask();
    t.ok(first.data.choices[0]?.message.content, 'answered');
    t.same(
      ['limit', 'remaining', 'reset'].map((part) => first.response.headers.get(`x-ratelimit-${part}-requests`)),
      ['2', '1', '1m0s'],
      'the cap, one left, the window empty a minute on',
    );
    const second = await ask();
    t.equal(second.response.headers.get('x-ratelimit-remaining-requests'), '0');

    // 59 s on, the first call leaves the window within the second: the next is refused with Retry-After: 1.
    clock.skewMs = 59_000;
    const started = Date.now();
    const third = await ask();
    const waited = Date.now() - started;
    t.same(statuses, [200, 200, 429, 200], 'refused once, then answered by the client retrying on its own');
    t.ok(waited >= 1_000, `the client waited the second Retry-After named (${waited} ms) before trying again`);
    t.equal(third.response.headers.get('x-ratelimit-limit-requests'), '2', 'the answer after the retry carries the headroom too');
    // The client slept the whole second from the refusal, which came after the second call: both left the window.
    t.equal(third.response.headers.get('x-ratelimit-remaining-requests'), '1', 'the retried call alone in the window');
  });
}
