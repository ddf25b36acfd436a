import t from 'tap';
import { raw, startHarness, type Harness } from '../helpers/harness.js';
import { openedBy } from '../helpers/reasoning-seal.js';

/**
 * Sealed reasoning state through the gateway (docs/deployments.md#affinity-and-sealed-reasoning-state),
 * in every format that hands state out: what a caller gets is a seal it cannot read; handed back
 * as it came, the vendor gets its own state; altered, or handed back by another key, it never
 * reaches the upstream, and the answer says it was left out.
 */

type Json = any;

interface Format {
  name: string;
  sim: (h: Harness) => Harness['alpha'];
  /** The first call: a question asking for thinking. */
  ask: (h: Harness, key: string) => Promise<Json>;
  /** The seal the reply handed out, and the reply's turn with `seal` put in its place. */
  sealOf: (reply: Json) => string;
  /** The follow-up call handing back the reply's turn with `seal` as its state. */
  replay: (h: Harness, key: string, reply: Json, seal: string) => Promise<{ status: number; headers: Headers; text: string }>;
  /** The member the drop is announced under. */
  member: string;
}

const post = (h: Harness, path: string, headers: Record<string, string>, body: Json) =>
  raw(h.origin, 'POST', path, { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const replaced = (value: Json, from: string, to: string): Json => JSON.parse(JSON.stringify(value).split(from).join(to));

const FORMATS: Format[] = [
  {
    name: 'chat',
    sim: (h) => h.alpha,
    ask: async (h, key) =>
      (
        await post(h, '/v1/chat/completions', bearer(key), { model: 'alpha-sonnet-4.6', reasoning_effort: 'low', messages: [{ role: 'user', content: 'Hi' }] })
      ).json(),
    sealOf: (reply) => reply.choices[0].message.thinking_blocks[0].signature,
    replay: (h, key, reply, seal) =>
      post(h, '/v1/chat/completions', bearer(key), {
        model: 'alpha-sonnet-4.6',
        reasoning_effort: 'low',
        messages: [
          { role: 'user', content: 'Hi' },
          replaced(reply.choices[0].message, reply.choices[0].message.thinking_blocks[0].signature, seal),
          { role: 'user', content: 'More' },
        ],
      }),
    member: 'thinking_blocks.signature',
  },
  {
    name: 'Responses',
    sim: (h) => h.alpha,
    ask: async (h, key) =>
      (await post(h, '/v1/responses', bearer(key), { model: 'alpha-sonnet-4.6', reasoning: { effort: 'low' }, input: 'Hi', store: false })).json(),
    sealOf: (reply) => reply.output[0].encrypted_content,
    replay: (h, key, reply, seal) =>
      post(h, '/v1/responses', bearer(key), {
        model: 'alpha-sonnet-4.6',
        reasoning: { effort: 'low' },
        store: false,
        input: [{ role: 'user', content: 'Hi' }, ...replaced(reply.output, reply.output[0].encrypted_content, seal), { role: 'user', content: 'More' }],
      }),
    member: 'encrypted_content',
  },
  {
    name: 'Messages',
    sim: (h) => h.alpha,
    ask: async (h, key) =>
      (
        await post(
          h,
          '/v1/messages',
          { 'x-api-key': key },
          { model: 'alpha-sonnet-4.6', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Hi' }] },
        )
      ).json(),
    sealOf: (reply) => reply.content[0].signature,
    replay: (h, key, reply, seal) =>
      post(
        h,
        '/v1/messages',
        { 'x-api-key': key },
        {
          model: 'alpha-sonnet-4.6',
          max_tokens: 2048,
          thinking: { type: 'enabled', budget_tokens: 1024 },
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: replaced(reply.content, reply.content[0].signature, seal) },
            { role: 'user', content: 'More' },
          ],
        },
      ),
    member: 'signature',
  },
  {
    name: 'Gemini',
    sim: (h) => h.beta,
    ask: async (h, key) =>
      (
        await post(
          h,
          '/v1beta/models/beta-3-flash:generateContent',
          { 'x-goog-api-key': key },
          {
            contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
            generationConfig: { thinkingConfig: { includeThoughts: true, thinkingLevel: 'LOW' } },
          },
        )
      ).json(),
    sealOf: (reply) => (reply.candidates[0].content.parts as Json[]).find((part) => part.thoughtSignature).thoughtSignature,
    replay: (h, key, reply, seal) => {
      const content = reply.candidates[0].content;
      const signature = (content.parts as Json[]).find((part) => part.thoughtSignature).thoughtSignature as string;
      return post(
        h,
        '/v1beta/models/beta-3-flash:generateContent',
        { 'x-goog-api-key': key },
        {
          contents: [{ role: 'user', parts: [{ text: 'Hi' }] }, replaced(content, signature, seal), { role: 'user', parts: [{ text: 'More' }] }],
          generationConfig: { thinkingConfig: { includeThoughts: true, thinkingLevel: 'LOW' } },
        },
      );
    },
    member: 'thoughtSignature',
  },
];

t.test('every format: a seal the caller cannot read; the vendor gets its own state back; a tampered or borrowed seal never reaches it', async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  const { key: otherKey } = await h.createKey();
  for (const format of FORMATS) {
    const reply = await format.ask(h, key);
    const seal = format.sealOf(reply);
    t.match(seal, /^gw2\.[A-Za-z0-9_-]+$/, `${format.name}: the state handed out is a seal`);
    const state = await openedBy(h.store, keyId, seal);
    t.ok(state && state.data !== '' && !seal.includes(state.data), `${format.name}: the vendor's state is not in it`);
    t.equal(state?.deployment, 'default', `${format.name}: sealed with the deployment that answered`);
    const vendorState = state?.data ?? '';

    const asHanded = await format.replay(h, key, reply, seal);
    t.equal(asHanded.status, 200, `${format.name}: handed back as it came: ${asHanded.text}`);
    t.ok(format.sim(h).requests.at(-1)?.body.includes(vendorState), `${format.name}: the vendor gets its own state back`);
    t.equal(asHanded.headers.get('x-gateway-adjusted'), null, `${format.name}: nothing left out`);

    const tail = seal.at(-2) === 'A' ? 'B' : 'A';
    const altered = `${seal.slice(0, -2)}${tail}${seal.at(-1) ?? ''}`;
    const tampered = await format.replay(h, key, reply, altered);
    t.equal(tampered.status, 200, `${format.name}: altered, the turn goes on without it: ${tampered.text}`);
    const sentTampered = format.sim(h).requests.at(-1)?.body ?? '';
    t.notOk(sentTampered.includes(altered) || sentTampered.includes('gw2.'), `${format.name}: the altered seal never reaches the upstream`);
    if (format.sim(h) === h.alpha) t.notOk(sentTampered.includes(vendorState), `${format.name}: nor the state it held`);
    t.equal(tampered.headers.get('x-gateway-adjusted'), `${format.member}=dropped:unverified`, `${format.name}: announced`);

    const borrowed = await format.replay(h, otherKey, reply, seal);
    t.equal(borrowed.status, 200, `${format.name}: another key's seal: ${borrowed.text}`);
    const sentBorrowed = format.sim(h).requests.at(-1)?.body ?? '';
    t.notOk(sentBorrowed.includes('gw2.'), `${format.name}: another key's seal never reaches the upstream`);
    if (format.sim(h) === h.alpha) t.notOk(sentBorrowed.includes(vendorState), `${format.name}: nor the state it held`);
    t.equal(borrowed.headers.get('x-gateway-adjusted'), `${format.member}=dropped:unverified`, `${format.name}: announced to the other key`);
  }
});
