import type OpenAI from 'openai';
import t, { type Test } from 'tap';
import { createBetaSimulator } from '../../plugins/vendor-beta/simulator.js';
import type { SimServer } from '../../src/simulators/sim-server.js';
import { WEATHER_TOOLS } from '../helpers/chat-scenarios.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { LocalUpstreamHealth } from '../helpers/local-upstream-health.js';

/**
 * Beta's kept thought signatures over two beta deployments (docs/deployments.md#betas-kept-thought-signatures):
 * each deployment is a beta simulator of its own, whose signatures are an HMAC with its own
 * secret, so a signature replayed to the other deployment is refused with the vendor's 400. A
 * follow-up of a tool call goes to the deployment that issued the call's signature; when that one
 * is cooled down, the turn goes to the other with the vendor's placeholder, announced.
 */

const MODEL = 'beta-3.1-pro';
const PLACEHOLDER = 'skip_thought_signature_validator';
type Json = Record<string, any>;

async function twoBetaDeployments(t: Test, strict = false): Promise<{ h: Harness; sims: [SimServer, SimServer]; key: string }> {
  const sims = [createBetaSimulator({ apiKey: 'beta-one-secret' }), createBetaSimulator({ apiKey: 'beta-two-secret' })] as [SimServer, SimServer];
  for (const sim of sims) {
    await sim.listen();
    t.teardown(() => sim.close());
  }
  const h = await startHarness(t, {
    env: { BETA_BASE_URL: '', BETA_API_KEY: '', BETA_KEY_ONE: 'beta-one-secret', BETA_KEY_TWO: 'beta-two-secret' },
    // A failure cools a deployment down at once.
    health: new LocalUpstreamHealth({ fails: 1, windowMs: 30_000, cooldownMs: 30_000 }),
    configure: (config) => {
      config.upstreams['beta'] = [
        { name: 'one', base_url: sims[0].url.replace(/\/$/, ''), api_key_env: 'BETA_KEY_ONE', weight: 1 },
        { name: 'two', base_url: sims[1].url.replace(/\/$/, ''), api_key_env: 'BETA_KEY_TWO', weight: 1 },
      ];
      if (strict) config.parameters = 'strict';
    },
  });
  return { h, sims, key: (await h.createKey()).key };
}

const post = async (h: Harness, key: string, body: Json): Promise<{ status: number; body: Json; adjusted: string | null }> => {
  const res = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, tools: WEATHER_TOOLS, ...body }),
  });
  return { status: res.status, body: (await res.json()) as Json, adjusted: res.headers.get('x-gateway-adjusted') };
};

/** The thought signature the first call of the conversation's model turn was sent with, on `sim`'s last request. */
const replayed = (sim: SimServer): unknown => (JSON.parse(sim.requests.at(-1)?.body ?? '{}') as Json)['contents'][1].parts[0].thoughtSignature;

/** A tool call asked for, and the follow-up that answers it. */
async function toolCallAndFollowUp(t: Test, h: Harness, key: string): Promise<Json[]> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo? [[sim:parallel=1]]' }];
  const asked = await post(h, key, { messages });
  t.equal(asked.status, 200);
  const calls = asked.body['choices'][0].message.tool_calls as OpenAI.ChatCompletionMessageToolCall[];
  t.equal(calls.length, 1, 'one tool call, its signature kept by the gateway');
  return [...messages, { role: 'assistant', content: null, tool_calls: calls }, { role: 'tool', tool_call_id: calls[0]?.id, content: '{"temp_c":4}' }];
}

t.test(
  'a follow-up goes to the deployment that issued its kept signature; when that one is cooled down, elsewhere with the placeholder, announced',
  async (t) => {
    const { h, sims, key } = await twoBetaDeployments(t);
    const followUp = await toolCallAndFollowUp(t, h, key);
    const issuer = sims[0].requests.length === 1 ? 0 : 1;
    const [issuing, other] = [sims[issuer], sims[1 - issuer] as SimServer];
    t.same([issuing.requests.length, other.requests.length], [1, 0]);

    // Equal weights: without the pin, six turns would all reach the issuer 1 time in 64 (and the other refuses the signature).
    for (let i = 0; i < 6; i += 1) {
      const turn = await post(h, key, { messages: followUp });
      t.equal(turn.status, 200, `turn ${i}: answered`, { diagnostic: false });
      t.equal(turn.adjusted, null, 'nothing dropped', { diagnostic: false });
    }
    t.same([issuing.requests.length, other.requests.length], [7, 0], 'every follow-up went to the deployment that issued the signature');
    t.match(replayed(issuing), /^[A-Za-z0-9+/=]{20,}$/, "the vendor's own signature replayed there");

    issuing.faults.push({ status: 503 });
    const moved = await post(h, key, { messages: followUp });
    t.equal(moved.status, 200, 'the issuer failed and is cooled down: the attempt went to the other at once');
    t.same([issuing.requests.length, other.requests.length], [8, 1]);
    t.equal(replayed(other), PLACEHOLDER, 'the other deployment is sent the placeholder, never the signature it cannot verify');
    t.equal(moved.adjusted, 'reasoning_state=dropped:deployment', 'announced as a sealed state left out is');

    const again = await post(h, key, { messages: followUp });
    t.equal(again.status, 200, 'while the issuer is cooled down, the conversation goes on elsewhere');
    t.equal(replayed(other), PLACEHOLDER);
  },
);

t.test('under parameters: strict, a signature left out because its deployment is cooled down is announced, not refused', async (t) => {
  const { h, sims, key } = await twoBetaDeployments(t, true);
  const followUp = await toolCallAndFollowUp(t, h, key);
  const issuing = sims[0].requests.length === 1 ? sims[0] : sims[1];
  issuing.faults.push({ status: 503 });
  const moved = await post(h, key, { messages: followUp });
  t.equal(moved.status, 200, 'the gateway routed the turn elsewhere; the caller asked nothing approximate');
  t.equal(moved.adjusted, 'reasoning_state=dropped:deployment');
});
