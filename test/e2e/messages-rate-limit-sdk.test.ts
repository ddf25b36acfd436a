import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { FakeClock, startHarness } from '../helpers/harness.js';
import { hello, sdk } from '../helpers/messages-client.js';

/**
 * The rate cap's Anthropic headers read through the official `@anthropic-ai/sdk`
 * (docs/api-contract.md#rate-limit-headers): `.withResponse()` on a message and on a stream, and
 * the SDK's RateLimitError carrying them with its Retry-After.
 */

t.test('the Messages SDK reads anthropic-ratelimit-requests-*: answers, streams and the 429', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const { key } = await h.createKey({ rpm_limit: 2 });
  const client = sdk(h, key);
  const headroom = (headers: Headers) => ['limit', 'remaining', 'reset'].map((part) => headers.get(`anthropic-ratelimit-requests-${part}`));

  const whole = await client.messages.create({ model: 'alpha-sonnet-4.6', max_tokens: 16, messages: hello }).withResponse();
  t.equal(whole.data.type, 'message');
  t.same(headroom(whole.response.headers), ['2', '1', '2026-11-15T12:01:00Z'], 'the cap, one left, the window empty at 12:01:00');

  clock.advance(30_000);
  const stream = await client.messages.create({ model: 'gamma-5.4', max_tokens: 16, messages: hello, stream: true }).withResponse();
  for await (const _event of stream.data);
  t.same(headroom(stream.response.headers), ['2', '0', '2026-11-15T12:01:00Z'], 'a stream: none left until the first call leaves');

  clock.advance(10_500);
  const refused = await client.messages.create({ model: 'alpha-sonnet-4.6', max_tokens: 16, messages: hello }).catch((error: unknown) => error);
  t.type(refused, Anthropic.RateLimitError, "the SDK's RateLimitError");
  const error = refused as { status: number; headers: Headers };
  t.equal(error.status, 429);
  t.same(headroom(error.headers), ['2', '0', '2026-11-15T12:01:00Z'], 'the refusal carries them, its reset when a call is admitted again');
  t.equal(error.headers.get('retry-after'), '20', '19.5 s, in whole seconds rounded up');
});
