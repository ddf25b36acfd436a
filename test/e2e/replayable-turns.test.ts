import t from 'tap';
import { alphaRequestBody } from '../../plugins/vendor-alpha/request.js';
import { betaRequestBody } from '../../plugins/vendor-beta/request.js';
import { gammaChatBody } from '../../plugins/vendor-gamma/request.js';
import { sealedBy } from '../helpers/reasoning-seal.js';
import { withReplayableTurns } from '../../src/neutral/replayable.js';
import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import type { NeutralRequest, ReasoningState, Turn } from '../../src/neutral/request.js';
import { GatewayError } from '../../src/http/errors.js';
import { post } from '../helpers/chat-scenarios.js';
import { startHarness } from '../helpers/harness.js';
import { NEUTRAL } from '../helpers/neutral-call.js';
import { catalogue } from '../helpers/translate.js';

/**
 * An assistant turn holding only reasoning a vendor cannot be sent (another family's state; for
 * beta and gamma any reasoning) is left out of that vendor's request, with the turns around it
 * merged, instead of going upstream as an empty message. Such turns come from a response cut short
 * while it thought, or from another family's reasoning item. A Messages body passed through to
 * alpha loses such a message too.
 */

type Json = Record<string, any>;
const ALPHA: ReasoningState = { family: 'alpha', kind: 'signature', data: 'EqQBCkYIBxgC' };
const BETA: ReasoningState = { family: 'beta', kind: 'thought_signature', data: 'CpwBAdHt' };
const user = (text: string): Turn => ({ role: 'user', parts: [{ type: 'text', text }] });
const thoughtOnly = (state: ReasoningState | null): Turn => ({ role: 'assistant', parts: [{ type: 'reasoning', text: 'Hmm.', state }] });
const request = (turns: Turn[], extra: Partial<NeutralRequest> = {}): NeutralRequest => ({ ...NEUTRAL, turns, ...extra });
function model(id: string): ModelEntry {
  const entry = catalogue.resolve(id);
  if (!entry) throw new Error(`${id} is not in the catalogue`);
  return entry;
}

/** The status of the GatewayError `build` throws; 0 when it throws none. */
function statusOf(build: () => unknown): number {
  try {
    build();
  } catch (error) {
    if (error instanceof GatewayError) return error.status;
    throw error;
  }
  return 0;
}

const bodies = (asked: NeutralRequest): Record<string, Json> => ({
  alpha: alphaRequestBody(asked, model('alpha-sonnet-4.6'), false),
  beta: betaRequestBody(asked, model('beta-3-flash'), new Map()),
  gamma: gammaChatBody(asked, model('gamma-5.4'), false),
});

t.test('a request with no such turn is the same object', async (t) => {
  const asked = request([
    user('a'),
    {
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'Hmm.', state: BETA },
        { type: 'text', text: 'b' },
      ],
    },
    user('c'),
  ]);
  t.equal(
    withReplayableTurns(asked, () => false),
    asked,
  );
});

t.test('another family’s reasoning alone: the turn is left out, the user turns around it merged', async (t) => {
  const out = bodies(request([user('first'), thoughtOnly(BETA), user('second')]));
  t.same(
    out['alpha']?.['messages'],
    [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
    ],
    'alpha',
  );
  const alphaOnly = bodies(request([user('first'), thoughtOnly(ALPHA), user('second')]));
  t.same(alphaOnly['beta']?.['contents'], [{ role: 'user', parts: [{ text: 'first' }, { text: 'second' }] }], 'beta (it replays no reasoning part)');
  t.same(
    alphaOnly['gamma']?.['messages'],
    [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
    ],
    'gamma',
  );
});

t.test('a vendor’s own reasoning alone is kept for it', async (t) => {
  const out = bodies(request([user('first'), thoughtOnly(ALPHA), user('second')]));
  t.same(out['alpha']?.['messages'][1], { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hmm.', signature: ALPHA.data }] });
});

t.test('a last turn of reasoning alone is no prefill', async (t) => {
  const asked = request([user('first'), thoughtOnly(BETA)], { reasoning: { kind: 'effort', effort: 'high', param: 'reasoning.effort' } });
  const body = alphaRequestBody(asked, model('alpha-sonnet-4.6'), false);
  t.same(body['messages'], [{ role: 'user', content: [{ type: 'text', text: 'first' }] }]);
  t.ok(body['thinking'] ?? body['output_config'], 'thinking is asked');
});

t.test('nothing but reasoning no vendor can be sent is a 400', async (t) => {
  t.equal(
    statusOf(() => alphaRequestBody(request([thoughtOnly(null)]), model('alpha-sonnet-4.6'), false)),
    400,
    'alpha',
  );
  t.equal(
    statusOf(() => gammaChatBody(request([thoughtOnly(ALPHA)]), model('gamma-5.4'), false)),
    400,
    'gamma',
  );
});

t.test('end to end: a response cut short while thinking on alpha, continued on beta and gamma', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const ask = (body: Json) => post(h, key, '/v1/responses', body);
  const first = await ask({ model: 'alpha-sonnet-4.6', input: 'think hard', reasoning: { effort: 'high' }, max_output_tokens: 3 });
  t.equal(first.status, 200);
  t.equal(first.json.status, 'incomplete');
  t.same(
    first.json.output.map((item: Json) => item['type']),
    ['reasoning'],
    'the response holds reasoning only',
  );
  for (const next of ['beta-3-flash', 'gamma-5.4']) {
    const sim = next.startsWith('beta') ? h.beta : h.gamma;
    const second = await ask({ model: next, previous_response_id: first.json.id, input: 'continue please' });
    t.equal(second.status, 200, `${next}: ${JSON.stringify(second.json).slice(0, 200)}`);
    const upstream = JSON.parse(sim.requests.at(-1)?.body ?? '{}') as Json;
    const turns = (upstream['contents'] ?? upstream['messages']) as Json[];
    t.same(
      turns.map((turn) => turn['role']),
      ['user'],
      `${next}: one user turn reaches the vendor, no empty assistant turn`,
    );
  }
});

t.test("end to end through the Messages format to alpha (passed through): a message of another family's thinking alone is left out", async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  const betaThinking = { type: 'thinking', thinking: 'Hmm.', signature: await sealedBy(h.store, keyId, BETA) };
  const res = await fetch(`${h.origin}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'alpha-sonnet-4.6',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: [betaThinking] },
        { role: 'user', content: 'second' },
      ],
    }),
  });
  t.equal(res.status, 200, await res.clone().text());
  const upstream = JSON.parse(h.alpha.requests.at(-1)?.body ?? '{}') as Json;
  t.same(
    upstream['messages'],
    [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
    ],
    'no empty assistant message reaches alpha: the user turns around it joined',
  );
});
