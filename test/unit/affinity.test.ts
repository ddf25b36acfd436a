import t from 'tap';
import chatPlugin from '../../plugins/ingress-chat/index.js';
import messagesPlugin, { MESSAGES_ENDPOINTS } from '../../plugins/ingress-messages/index.js';
import { RESPONSES_ENDPOINT } from '../../plugins/ingress-responses/index.js';
import { keepConversation, pinToStored } from '../../plugins/ingress-responses/affinity.js';
import { Call, type Endpoint } from '../../src/chain/call.js';
import type { PluginContext } from '../../src/chain/plugin.js';
import { pinToSealedState, requestOnDeployment } from '../../src/neutral/reasoning-state.js';
import type { ReasoningState } from '../../src/neutral/request.js';
import type { KeyRecord } from '../../src/store/store.js';
import { neutralCall } from '../helpers/neutral-call.js';
import { sealed } from '../helpers/reasoning-seal.js';
import { ENDPOINTS } from '../helpers/endpoints.js';
import { detachedExchange, resolvedTo } from '../helpers/translate.js';

/**
 * What keeps a conversation on one deployment (docs/deployments.md#affinity-and-sealed-reasoning-state):
 * the affinity key from each format's conversation identity, namespaced by the key; the pin to
 * the deployment of the latest sealed state, in the body or the stored conversation; and the
 * states another deployment issued left out of an attempt.
 */

const KEY = { id: 'key_1' } as KeyRecord;

const CHAT = ENDPOINTS['chat.completions'];
const MESSAGES = MESSAGES_ENDPOINTS[0] as Endpoint;

function keyed(body: Record<string, unknown>, endpoint: Endpoint, model: string, headers: Record<string, string> = {}, key = KEY): Call {
  const { req, res } = detachedExchange();
  Object.assign(req.headers, headers);
  const call = resolvedTo(new Call(endpoint, req, res, 0, Buffer.from(JSON.stringify(body))), model);
  call.authenticate(key);
  return call;
}

interface Hooks {
  onRequest?: (call: Call) => unknown;
}
const hooksOf = async (plugin: { setup: (context: PluginContext, config: never) => unknown }): Promise<Hooks> =>
  (await plugin.setup({ catalogue: { entries: () => [] } } as unknown as PluginContext, undefined as never)) as Hooks;

t.test('the affinity key: the conversation as each format names it, namespaced by the key; none without one', async (t) => {
  const chat = await hooksOf(chatPlugin);
  const messages = await hooksOf(messagesPlugin);
  const user = [{ role: 'user', content: 'Hi' }];

  const cached = keyed({ model: 'gamma-5.4', messages: user, prompt_cache_key: 'pck-1' }, CHAT, 'gamma-5.4');
  await chat.onRequest?.(cached);
  t.equal(cached.affinityKey, 'key_1:pck-1', 'chat: prompt_cache_key');
  const plain = keyed({ model: 'gamma-5.4', messages: user }, CHAT, 'gamma-5.4');
  await chat.onRequest?.(plain);
  t.equal(plain.affinityKey, null, 'chat without one: none');
  const otherKey = keyed({ model: 'gamma-5.4', messages: user, prompt_cache_key: 'pck-1' }, CHAT, 'gamma-5.4', {}, { id: 'key_2' } as KeyRecord);
  await chat.onRequest?.(otherKey);
  t.not(otherKey.affinityKey, cached.affinityKey, 'another key never shares it');

  const session = keyed({ model: 'alpha-sonnet-4.6', max_tokens: 8, messages: user }, MESSAGES, 'alpha-sonnet-4.6', { 'x-claude-code-session-id': 'cc-7' });
  await messages.onRequest?.(session);
  t.equal(session.affinityKey, 'key_1:cc-7', "Messages: Claude Code's session header");

  const codex = keyed(
    { model: 'gamma-5.4', input: 'Hi', client_metadata: { session_id: 'thread-9' }, prompt_cache_key: 'pck-2' },
    RESPONSES_ENDPOINT,
    'gamma-5.4',
  );
  keepConversation(codex);
  t.equal(codex.affinityKey, 'key_1:thread-9', "Responses: Codex's session id before prompt_cache_key");
  const responses = keyed({ model: 'gamma-5.4', input: 'Hi', prompt_cache_key: 'pck-2' }, RESPONSES_ENDPOINT, 'gamma-5.4');
  keepConversation(responses);
  t.equal(responses.affinityKey, 'key_1:pck-2', 'Responses: prompt_cache_key');
});

const state = (data: string): ReasoningState => ({ family: 'alpha', kind: 'signature', data });

t.test('the pin: the deployment of the latest sealed state, in the body or the stored conversation', async (t) => {
  const assistant = (signature: string) => ({ role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature }] });
  const body = { model: 'alpha-sonnet-4.6', messages: [assistant(sealed(state('a'), 'east', 'key_1')), assistant(sealed(state('b'), 'west', 'key_1'))] };
  const call = keyed(body, CHAT, 'alpha-sonnet-4.6');
  pinToSealedState(call);
  t.equal(call.pinnedDeployment, 'west', 'the latest');
  const unsealed = keyed({ model: 'alpha-sonnet-4.6', messages: [assistant('EqQBraw')] }, CHAT, 'alpha-sonnet-4.6');
  pinToSealedState(unsealed);
  t.equal(unsealed.pinnedDeployment, null, "a vendor's own signature pins nothing");
  const foreign = keyed(body, CHAT, 'alpha-sonnet-4.6', {}, { id: 'key_2' } as KeyRecord);
  pinToSealedState(foreign);
  t.equal(foreign.pinnedDeployment, null, "another key's seal pins nothing");

  const history = [
    { type: 'reasoning', encrypted_content: sealed(state('a'), 'east', 'key_1') },
    { type: 'message', role: 'assistant', content: [] },
    { type: 'reasoning', encrypted_content: sealed(state('b'), 'south', 'key_1') },
    { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
  ];
  const continued = keyed({ model: 'alpha-sonnet-4.6', input: 'more' }, RESPONSES_ENDPOINT, 'alpha-sonnet-4.6');
  pinToStored(continued, null, history);
  t.equal(continued.pinnedDeployment, 'south', "previous_response_id, stored before deployments were kept: the conversation's latest state");
  const answered = keyed({ model: 'alpha-sonnet-4.6', input: 'more' }, RESPONSES_ENDPOINT, 'alpha-sonnet-4.6');
  pinToStored(answered, 'north', history);
  t.equal(answered.pinnedDeployment, 'north', 'previous_response_id: the deployment that answered the response continued');
});

t.test("an attempt on another deployment than a state's is sent the turn without it, announced once", async (t) => {
  const turns = [
    { role: 'user' as const, parts: [{ type: 'text' as const, text: 'Hi' }] },
    {
      role: 'assistant' as const,
      parts: [
        { type: 'reasoning' as const, text: 'x', state: { ...state('a'), deployment: 'east' } },
        { type: 'reasoning' as const, text: 'y', state: state('own') },
        { type: 'tool_call' as const, id: 'c', name: 'f', args: {}, state: { family: 'beta', kind: 'thought_signature', data: 's', deployment: 'east' } },
      ],
    },
    { role: 'user' as const, parts: [{ type: 'tool_result' as const, id: 'c', name: 'f', content: 'ok' }] },
  ];
  const call = neutralCall({ turns }, 'alpha-sonnet-4.6');
  call.pinnedDeployment = 'east';
  call.deployment = 'east';
  t.equal(requestOnDeployment(call, call.request), call.request, 'on the issuing deployment: the request as it is');
  call.deployment = 'west';
  const moved = requestOnDeployment(call, call.request);
  t.same(moved.turns[1]?.parts, [
    { type: 'reasoning', text: 'x', state: null },
    { type: 'reasoning', text: 'y', state: state('own') },
    { type: 'tool_call', id: 'c', name: 'f', args: {} },
  ]);
  t.same(call.adjustments, [{ param: 'reasoning_state', action: 'dropped:deployment' }], 'announced once');
  const unpinned = neutralCall({ turns }, 'alpha-sonnet-4.6');
  unpinned.deployment = 'west';
  t.equal(requestOnDeployment(unpinned, unpinned.request), unpinned.request, 'a call pinned to nothing is not looked through');

  // The gateway's routing left the state out, not an approximation of a parameter: strict announces it too.
  const strict = neutralCall({ turns }, 'alpha-sonnet-4.6');
  strict.parameterPolicy = 'strict';
  strict.pinnedDeployment = 'east';
  strict.deployment = 'west';
  t.same(requestOnDeployment(strict, strict.request).turns[1]?.parts, moved.turns[1]?.parts, 'under parameters: strict, the same turn');
  t.same(strict.adjustments, [{ param: 'reasoning_state', action: 'dropped:deployment' }], 'announced, not refused');
});
