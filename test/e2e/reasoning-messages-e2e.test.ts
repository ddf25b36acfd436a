import Anthropic from '@anthropic-ai/sdk';
import t, { type Test } from 'tap';
import { openedBy } from '../helpers/reasoning-seal.js';
import { THINKING } from '../../src/simulators/reply-plan.js';
import { dig } from '../helpers/dig.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';
import { lastUpstreamBody, sdk } from '../helpers/messages-client.js';

/**
 * Reasoning end to end through the Messages format: the real gateway on an ephemeral port, the
 * official `@anthropic-ai/sdk` client, the simulators (which sign their thinking and refuse a
 * tool turn without it, as the vendors do). A two-turn tool conversation with thinking on, on
 * alpha (passed through) and on beta (translated), whole and streamed: turn 1 thinks and calls,
 * turn 2 hands the assistant content back as it came and reaches the vendor with alpha's signed
 * block first in the turn or beta's thought signature on the call; reasoning tokens inside
 * `output_tokens` and every ledger row charged output tokens × price exactly.
 */

const THOUGHT = THINKING.join('');
/** Charged nano-dollars per output token (config/models.yaml). */
const PRICE: Record<string, number> = { 'alpha-sonnet-4.6': 1500, 'beta-3-flash': 38 };
const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const QUESTION: Anthropic.MessageParam = { role: 'user', content: 'Weather in Oslo?' };
const THINKING_ON = { type: 'enabled', budget_tokens: 2048 } as const;

type Ask = (messages: Anthropic.MessageParam[]) => Promise<Anthropic.Message>;

const asker =
  (client: Anthropic, model: string, streamed: boolean): Ask =>
  (messages) => {
    const params = { model, max_tokens: 4096, thinking: THINKING_ON, tools: [WEATHER], messages };
    return streamed ? client.messages.stream(params).finalMessage() : client.messages.create(params);
  };

/** The turn that answers turn 1's call, with turn 1's content handed back as `content`. */
const answering = (first: Anthropic.Message, content: Anthropic.ContentBlockParam[] = first.content): Anthropic.MessageParam[] => {
  const use = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
  return [QUESTION, { role: 'assistant', content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id ?? '', content: 'sunny' }] }];
};

/** Turn 1 (the model thinks and calls), then turn 2 with the content handed back as it came; returns turn 1's reply and what reached the vendor on turn 2. */
async function toolLoop(t: Test, h: Harness, client: Anthropic, model: string, streamed: boolean): Promise<{ first: Anthropic.Message; upstream: unknown }> {
  const ask = asker(client, model, streamed);
  const first = await ask([QUESTION]);
  const where = `${model}${streamed ? ', streamed' : ''}`;
  t.match(
    first.content,
    [
      { type: 'thinking', thinking: THOUGHT, signature: /./ },
      { type: 'tool_use', name: 'get_weather' },
    ],
    `${where}: the thinking block first, then the call`,
  );
  t.match([first.stop_reason, first.usage.output_tokens], ['tool_use', 16], `${where}: 6 thinking tokens + one call, inside output_tokens`);
  const second = await ask(answering(first));
  // A streamed beta turn without calls carries its signature on its last part: a thinking block after the text.
  t.match(
    second.content.find((block) => block.type === 'text'),
    { text: /^Tool results: .*sunny/ },
    `${where}: the second turn goes through`,
  );
  return { first, upstream: lastUpstreamBody(model.startsWith('alpha') ? h.alpha : h.beta) };
}

t.test('Messages format, thinking on alpha and beta: two tool turns, whole and streamed, the thinking replayed, billed exactly', async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  const client = sdk(h, key);
  for (const streamed of [false, true]) {
    const alpha = await toolLoop(t, h, client, 'alpha-sonnet-4.6', streamed);
    t.same(dig(alpha.upstream, 'thinking'), THINKING_ON, 'alpha gets thinking as sent');
    const signed = alpha.first.content[0] as Anthropic.ThinkingBlock;
    t.same(
      dig(alpha.upstream, 'messages', 1, 'content', 0),
      { ...signed, signature: (await openedBy(h.store, keyId, signed.signature))?.data },
      'alpha gets its signed thinking block back first in the turn, out of its seal',
    );

    const beta = await toolLoop(t, h, client, 'beta-3-flash', streamed);
    const block = beta.first.content[0] as Anthropic.ThinkingBlock;
    const state = await openedBy(h.store, keyId, block.signature);
    t.same([state?.family, state?.kind], ['beta', 'thought_signature'], "beta: its signature in the gateway's envelope");
    t.equal(
      dig(beta.upstream, 'contents', 1, 'parts', 0, 'thoughtSignature'),
      state?.data,
      'beta gets its thought signature back on the call (not the placeholder)',
    );
    t.same(
      dig(beta.upstream, 'generationConfig', 'thinkingConfig'),
      { thinkingLevel: 'MEDIUM', includeThoughts: true },
      'beta: a budget of 2048 is a medium effort, its level by the catalogue',
    );
  }
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  const rows = ledger.rows(keyId);
  t.same(
    rows.map((row) => [row.model, row.endpoint, row.stream]),
    ['alpha-sonnet-4.6', 'beta-3-flash']
      .flatMap((model) => [
        [model, 'messages', 0],
        [model, 'messages', 0],
      ])
      .concat(
        ['alpha-sonnet-4.6', 'beta-3-flash'].flatMap((model) => [
          [model, 'messages', 1],
          [model, 'messages', 1],
        ]),
      ),
    'a row per call',
  );
  for (const row of rows) t.equal(row.charged_nano, row.completion_tokens * (PRICE[row.model] as number), `${row.model}: thinking billed as output, exactly`);
  t.same(
    rows.filter((_, i) => i % 2 === 0).map((row) => row.completion_tokens),
    [16, 16, 16, 16],
    'each first turn: 6 thinking + one call, billed',
  );
});

t.test("a tool turn handed back without its thinking: alpha's vendor refuses it; beta gets the signature the gateway kept", async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  const client = sdk(h, key);
  const withoutThinking = (first: Anthropic.Message): Anthropic.MessageParam[] =>
    answering(
      first,
      first.content.filter((block) => block.type !== 'thinking'),
    );

  const alpha = asker(client, 'alpha-sonnet-4.6', false);
  const refused = await alpha(withoutThinking(await alpha([QUESTION]))).catch((error: unknown) => error);
  t.type(refused, Anthropic.BadRequestError, 'alpha: 400');
  t.match((refused as Error).message, /Expected `thinking` or `redacted_thinking`, but found `tool_use`/, "the vendor's own reason");

  const beta = asker(client, 'beta-3-flash', false);
  const first = await beta([QUESTION]);
  const second = await beta(withoutThinking(first));
  t.match(
    second.content.find((block) => block.type === 'text'),
    { text: /^Tool results: .*sunny/ },
    'beta: the turn goes through',
  );
  const signature = (await openedBy(h.store, keyId, (first.content[0] as Anthropic.ThinkingBlock).signature))?.data;
  t.equal(
    dig(lastUpstreamBody(h.beta), 'contents', 1, 'parts', 0, 'thoughtSignature'),
    signature,
    'with the signature kept in the store for the call, not the placeholder',
  );
});
