import t from 'tap';
import { raw, startHarness, type Harness } from '../helpers/harness.js';

/**
 * "Clients as shipped" on /v1/messages, through the gateway and the simulators: the request
 * Claude Code 2.1.332 sends by default (context_management clear_thinking keep all, a deferred
 * placeholder tool, max_tokens 32000 for a model id it does not know, adaptive thinking with its
 * display omitted, output_config.effort high, metadata.user_id a JSON string, its anthropic-beta
 * values) is answered on every family: alpha gets it passed through with the beta its body
 * needs, beta and gamma offer the deferred tool at once and say so, a model whose limit is under
 * 32000 has it clamped and says so. Under `parameters: strict` the adjusted ones answer 400.
 */

type Json = Record<string, any>;

const BETAS =
  'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,advanced-tool-use-2025-11-20,mid-conversation-tool-changes-2026-07-01,thinking-token-count-2026-05-13';
const USER_ID = JSON.stringify({ device_id: 'd'.repeat(64), account_uuid: '', session_id: '0199aaaa-bbbb-cccc-dddd-eeeeeeeeeeee' });

const claudeCode = (model: string): Json => ({
  model,
  max_tokens: 32000,
  stream: true,
  system: [
    { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.332; cc_entrypoint=cli; cch=0;' },
    { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } },
  ],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.', cache_control: { type: 'ephemeral' } }] }],
  thinking: { type: 'adaptive', display: 'omitted' },
  output_config: { effort: 'high' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  tools: [
    { name: 'Bash', description: 'Runs a command.', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
    { name: 'mcp__placeholder', description: 'Loaded on demand.', input_schema: { type: 'object', properties: {} }, defer_loading: true },
  ],
  tool_choice: { type: 'auto' },
  metadata: { user_id: USER_ID },
});

const post = (h: Harness, key: string, body: Json) =>
  raw(h.origin, 'POST', '/v1/messages', {
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': BETAS,
      'x-claude-code-session-id': 's-1',
    },
    body: JSON.stringify(body),
  });

/** Each model, the family answering it, and what the answer must announce (null: nothing). */
const CASES = [
  { model: 'alpha-sonnet-4.6', family: 'alpha', adjusted: null, strictParam: null },
  // Claude Code asks 32000 of any model it does not know; alpha-haiku-4.5 produces up to 64000 (clamping: test/e2e/max-output-cap.test.ts).
  { model: 'alpha-haiku-4.5', family: 'alpha', adjusted: null, strictParam: null },
  { model: 'beta-3-flash', family: 'beta', adjusted: 'tools[1]=offered:deferred', strictParam: 'tools[1]' },
  { model: 'gamma-5.4', family: 'gamma', adjusted: 'tools[1]=offered:deferred', strictParam: 'tools[1]' },
] as const;

t.test("Claude Code's default request: answered on every family, each approximation announced", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  for (const { model, family, adjusted } of CASES) {
    const got = await post(h, key, claudeCode(model));
    t.equal(got.status, 200, `${model}: answered (${got.text.slice(0, 300)})`);
    t.equal(got.headers.get('x-gateway-adjusted'), adjusted, `${model}: announced`);
    t.match(got.text, /event: message_stop/, `${model}: the stream ends as Messages streams do`);
    const seen = h[family].requests.at(-1);
    const upstream = JSON.parse(seen?.body ?? '{}') as Json;
    if (family === 'alpha') {
      t.equal(
        seen?.headers['anthropic-beta'],
        'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,advanced-tool-use-2025-11-20',
        `${model}: the beta defer_loading needs is forwarded`,
      );
      t.same(upstream['context_management'], { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }, `${model}: the edit passed through`);
      t.equal(upstream['max_tokens'], 32000, `${model}: the limit sent as asked`);
    } else if (family === 'beta') {
      t.same(
        upstream['tools'][0].functionDeclarations.map((f: Json) => f['name']),
        ['Bash', 'mcp__placeholder'],
        'beta: the deferred tool offered at once',
      );
    } else {
      t.same(
        upstream['tools'].map((tool: Json) => tool['function'].name),
        ['Bash', 'mcp__placeholder'],
        'gamma: the deferred tool offered at once',
      );
      t.match(upstream['user'], /^uh_[A-Za-z0-9_-]{43}$/, 'gamma: the long user id sent as a hash gamma takes');
    }
  }
});

t.test('under parameters: strict the adjusted ones are a 400 naming the parameter, the rest answered', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_PARAMETERS: 'strict' } });
  const { key } = await h.createKey();
  for (const { model, strictParam } of CASES) {
    const got = await post(h, key, claudeCode(model));
    if (strictParam === null) {
      t.equal(got.status, 200, `${model}: nothing to adjust, answered`);
      continue;
    }
    t.equal(got.status, 400, model);
    t.match(got.json(), { type: 'error', error: { type: 'invalid_request_error', param: strictParam } }, `${model}: naming ${strictParam}`);
  }
});
