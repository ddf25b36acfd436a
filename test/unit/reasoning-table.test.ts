import t from 'tap';
import { AlphaTranslator } from '../../plugins/vendor-alpha/translator.js';
import { BetaTranslator } from '../../plugins/vendor-beta/translator.js';
import { createGammaTranslator } from '../../plugins/vendor-gamma/translator.js';
import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import { reasoningSpec } from '../../src/catalogue/reasoning.js';
import type { NeutralRequest, ReasoningRequest } from '../../src/neutral/request.js';
import { betaServices, neutralCall, upstreamJson } from '../helpers/neutral-call.js';
import { catalogue, makeCall, thrown } from '../helpers/translate.js';
import type { ResolvedCall } from '../../src/chain/phases.js';

/**
 * docs/reasoning.md#the-effort-table, row by row and model by model, through the real vendor
 * translators: what each effort (chat `reasoning_effort`), each explicit budget and `off` (as the
 * Messages format asks) becomes in the vendor's request, with literal fixtures. Then the limits
 * and the refusals: budgets kept under the output limit, a model that does not reason, the
 * vendors' constraints while thinking, and a catalogue style a vendor does not speak.
 */

type Json = Record<string, unknown>;
const services = betaServices();

/** The vendor request's reasoning fields for a call. */
async function reasoningFields(call: ResolvedCall): Promise<Json> {
  const family = call.model?.family;
  if (family === 'alpha') {
    const body = JSON.parse(new AlphaTranslator(call, 'k').request().body.toString()) as Json;
    return { thinking: body['thinking'], output_config: body['output_config'] };
  }
  if (family === 'beta') {
    const body = await upstreamJson(new BetaTranslator(call, services).request());
    return { thinkingConfig: (body['generationConfig'] as Json | undefined)?.['thinkingConfig'] };
  }
  const body = await upstreamJson(createGammaTranslator(call, 'k', null).request());
  return { reasoning_effort: body['reasoning_effort'] };
}

const chat = (model: string, effort: string | undefined, extra: Json = {}): ResolvedCall =>
  makeCall({ model, messages: [{ role: 'user', content: 'x' }], ...(effort ? { reasoning_effort: effort } : {}), ...extra }, { model });

const adaptive = (effort: string): Json => ({ thinking: { type: 'adaptive' }, output_config: { effort } });
const budget = (tokens: number): Json => ({ thinking: { type: 'enabled', budget_tokens: tokens }, output_config: undefined });
const level = (thinkingLevel: string, shown = true): Json => ({ thinkingConfig: { thinkingLevel, ...(shown ? { includeThoughts: true } : {}) } });
const NOTHING_ALPHA: Json = { thinking: undefined, output_config: undefined };
const NOTHING_BETA: Json = { thinkingConfig: undefined };

/** Effort → [alpha-opus-4.6 (adaptive), alpha-sonnet-4.6 (adaptive, no max), alpha-haiku-4.5 (budget, 64000 out), beta-3-flash, beta-3.1-pro, gamma-5.4 (translated)]. */
const EFFORTS: Array<[string | undefined, Json[]]> = [
  [undefined, [NOTHING_ALPHA, NOTHING_ALPHA, NOTHING_ALPHA, NOTHING_BETA, NOTHING_BETA, { reasoning_effort: undefined }]],
  ['none', [NOTHING_ALPHA, NOTHING_ALPHA, NOTHING_ALPHA, level('MINIMAL', false), level('LOW', false), { reasoning_effort: 'none' }]],
  ['minimal', [adaptive('low'), adaptive('low'), budget(1024), level('MINIMAL'), level('LOW'), { reasoning_effort: 'minimal' }]],
  ['low', [adaptive('low'), adaptive('low'), budget(1024), level('LOW'), level('LOW'), { reasoning_effort: 'low' }]],
  ['medium', [adaptive('medium'), adaptive('medium'), budget(2048), level('MEDIUM'), level('HIGH'), { reasoning_effort: 'medium' }]],
  ['high', [adaptive('high'), adaptive('high'), budget(4096), level('HIGH'), level('HIGH'), { reasoning_effort: 'high' }]],
  ['xhigh', [adaptive('high'), adaptive('high'), budget(8192), level('HIGH'), level('HIGH'), { reasoning_effort: 'high' }]],
  ['max', [adaptive('max'), adaptive('high'), budget(16384), level('HIGH'), level('HIGH'), { reasoning_effort: 'high' }]],
];
const MODELS = ['alpha-opus-4.6', 'alpha-sonnet-4.6', 'alpha-haiku-4.5', 'beta-3-flash', 'beta-3.1-pro', 'gamma-5.4'];

t.test('every effort, every model: the vendor setting', async (t) => {
  for (const [effort, expected] of EFFORTS) {
    for (const [i, model] of MODELS.entries()) {
      const reasoning: ReasoningRequest | null = effort ? { kind: 'effort', effort: effort as 'low', param: 'reasoning_effort' } : null;
      // Gamma is sent a chat caller's body as it came: its translated path is what the table maps.
      const call = model.startsWith('gamma') ? neutralCall({ reasoning }, model) : chat(model, effort);
      t.same(await reasoningFields(call), expected[i], `${effort ?? 'absent'} → ${model}`);
    }
  }
});

t.test('explicit budgets and off (the Messages format asks them): the vendor setting', async (t) => {
  const rows: Array<[string, ReasoningRequest, string, Json]> = [
    ['a budget goes as it is to a budget model', { kind: 'budget', tokens: 3000, param: 'thinking.budget_tokens' }, 'alpha-haiku-4.5', budget(3000)],
    [
      'and to an adaptive one (the vendor still takes budgets)',
      { kind: 'budget', tokens: 3000, param: 'thinking.budget_tokens' },
      'alpha-sonnet-4.6',
      budget(3000),
    ],
    ['≤1024 reads as low for a level model', { kind: 'budget', tokens: 1024, param: 'thinking.budget_tokens' }, 'beta-3-flash', level('LOW')],
    ['≤8192 as medium', { kind: 'budget', tokens: 8192, param: 'thinking.budget_tokens' }, 'beta-3-flash', level('MEDIUM')],
    ['more as high', { kind: 'budget', tokens: 8193, param: 'thinking.budget_tokens' }, 'beta-3.1-pro', level('HIGH')],
    ['≤1024 as low for gamma', { kind: 'budget', tokens: 1000, param: 'thinking.budget_tokens' }, 'gamma-5.4', { reasoning_effort: 'low' }],
    ['≤8192 as medium for gamma', { kind: 'budget', tokens: 4000, param: 'thinking.budget_tokens' }, 'gamma-5.4', { reasoning_effort: 'medium' }],
    ['more as high for gamma', { kind: 'budget', tokens: 10000, param: 'thinking.budget_tokens' }, 'gamma-5.4', { reasoning_effort: 'high' }],
    ['off: alpha is not asked to think', { kind: 'off', param: 'thinking' }, 'alpha-sonnet-4.6', NOTHING_ALPHA],
    ['off: a level model thinks least, unseen', { kind: 'off', param: 'thinking' }, 'beta-3-flash', level('MINIMAL', false)],
    ['off: gamma none', { kind: 'off', param: 'thinking' }, 'gamma-5.4', { reasoning_effort: 'none' }],
  ];
  for (const [label, reasoning, model, expected] of rows) t.same(await reasoningFields(neutralCall({ reasoning }, model)), expected, `${label} (${model})`);
});

t.test('a beta model of the budget style (2.5-like): thinkingBudget, 0 for none', async (t) => {
  const at = (reasoning: ReasoningRequest, maxTokens: number | null = null): ResolvedCall => {
    const call = neutralCall({ reasoning, maxTokens }, 'beta-3-flash');
    call.resolveModel({ ...(catalogue.resolve('beta-3-flash') as ModelEntry), reasoning: reasoningSpec({ style: 'budget', efforts: { medium: 3000 } }) });
    return call;
  };
  t.same(
    await reasoningFields(at({ kind: 'effort', effort: 'medium', param: 'reasoning_effort' })),
    { thinkingConfig: { thinkingBudget: 3000, includeThoughts: true } },
    "the model's own table",
  );
  t.same(await reasoningFields(at({ kind: 'effort', effort: 'none', param: 'reasoning_effort' })), { thinkingConfig: { thinkingBudget: 0 } }, 'none → 0');
  t.same(await reasoningFields(at({ kind: 'off', param: 'thinking' })), { thinkingConfig: { thinkingBudget: 0 } }, 'off → 0');
  t.same(
    await reasoningFields(at({ kind: 'budget', tokens: 700, param: 'thinking.budget_tokens' })),
    { thinkingConfig: { thinkingBudget: 700, includeThoughts: true } },
    'an explicit budget as it came (the vendor judges it)',
  );
  t.same(
    await reasoningFields(at({ kind: 'effort', effort: 'high', param: 'reasoning_effort' }, 2000)),
    { thinkingConfig: { thinkingBudget: 1999, includeThoughts: true } },
    'kept under maxOutputTokens',
  );
  t.same(
    await reasoningFields(at({ kind: 'budget', tokens: 2048, param: 'thinking.budget_tokens', omitted: true })),
    { thinkingConfig: { thinkingBudget: 2048 } },
    'thinking asked without its text: no includeThoughts',
  );
  t.same(
    await reasoningFields(neutralCall({ reasoning: { kind: 'effort', effort: 'high', param: 'thinking', omitted: true } }, 'beta-3-flash')),
    level('HIGH', false),
    'likewise for a level',
  );
});

t.test('budgets derived from an effort stay under the output limit', async (t) => {
  t.same(await reasoningFields(chat('alpha-haiku-4.5', 'high', { max_tokens: 1500 })), budget(1499), 'high (4096) under max_tokens 1500');
  t.same(await reasoningFields(chat('alpha-haiku-4.5', 'low', { max_tokens: 1000 })), NOTHING_ALPHA, 'under 1024 left: no thinking');
  const lowLimit = JSON.parse(new AlphaTranslator(chat('alpha-haiku-4.5', 'low', { max_tokens: 1000 }), 'k').request().body.toString()) as Json;
  t.equal(lowLimit['max_tokens'], 1000, "the caller's limit is never changed");
});

t.test("refusals: a model that does not reason, the vendors' limits and constraints while thinking", async (t) => {
  const plain = (family: string): ModelEntry => ({ ...(catalogue.models.find((m) => m.family === family) as ModelEntry), reasoning: { style: 'none' } });
  for (const family of ['alpha', 'beta', 'gamma']) {
    const call = neutralCall({ reasoning: { kind: 'effort', effort: 'low', param: 'reasoning.effort' } }, 'gamma-5.4');
    call.resolveModel(plain(family));
    t.match(
      await reasoningFields(call).catch((e: unknown) => e),
      { status: 400, param: 'reasoning.effort', message: /does not reason/ },
      `${family}: a model without reasoning`,
    );
    const none = neutralCall({ reasoning: { kind: 'effort', effort: 'none', param: 'reasoning.effort' } }, 'gamma-5.4');
    none.resolveModel(plain(family));
    const nothing = { alpha: NOTHING_ALPHA, beta: NOTHING_BETA, gamma: { reasoning_effort: undefined } }[family];
    t.same(await reasoningFields(none), nothing, `${family}: none asks nothing of it`);
    const adaptive = neutralCall({ reasoning: { kind: 'effort', effort: 'high', param: 'thinking', ifReasoning: true } }, 'gamma-5.4');
    adaptive.resolveModel(plain(family));
    t.same(await reasoningFields(adaptive), nothing, `${family}: adaptive thinking (the model decides) asks nothing of it`);
  }
  const passthrough = chat('gamma-5.4', 'high');
  passthrough.resolveModel(plain('gamma'));
  t.match(
    thrown(() => createGammaTranslator(passthrough, 'k', null).request()),
    { status: 400, param: 'reasoning_effort' },
    'gamma passthrough: the same rule',
  );

  const alpha = (request: Partial<NeutralRequest>, model = 'alpha-sonnet-4.6'): unknown =>
    thrown(() => new AlphaTranslator(neutralCall(request, model), 'k').request());
  const effort: ReasoningRequest = { kind: 'effort', effort: 'high', param: 'reasoning_effort' };
  const refusals: Array<[string, Partial<NeutralRequest>, string]> = [
    ['temperature other than 1', { reasoning: effort, temperature: 0.5 }, 'temperature'],
    ['top_k', { reasoning: effort, topK: 5 }, 'top_k'],
    ['top_p under 0.95', { reasoning: effort, topP: 0.9 }, 'top_p'],
    ['a forced tool_choice', { reasoning: effort, tools: [{ name: 'f' }], toolChoice: 'required' }, 'tool_choice'],
    ['a named tool_choice', { reasoning: effort, tools: [{ name: 'f' }], toolChoice: { name: 'f' } }, 'tool_choice'],
    ['JSON output (a forced tool)', { reasoning: effort, responseFormat: { type: 'json_object', param: 'text.format' } }, 'text.format'],
    [
      'a prefill',
      {
        reasoning: effort,
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'x' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'Sure' }] },
        ],
      },
      'reasoning_effort',
    ],
    ['a budget under 1024', { reasoning: { kind: 'budget', tokens: 1000, param: 'thinking.budget_tokens' } }, 'thinking.budget_tokens'],
    [
      'a budget not under max_tokens',
      { reasoning: { kind: 'budget', tokens: 2000, param: 'thinking.budget_tokens' }, maxTokens: 2000 },
      'thinking.budget_tokens',
    ],
  ];
  for (const [label, request, param] of refusals) t.match(alpha(request), { status: 400, param }, `alpha, thinking: ${label} is refused naming ${param}`);
  t.equal(
    alpha({ reasoning: effort, temperature: 1, topP: 0.95, tools: [{ name: 'f' }], toolChoice: 'auto' }),
    undefined,
    'temperature 1, top_p 0.95, tool_choice auto are fine',
  );
  t.equal(
    alpha({ reasoning: { kind: 'effort', effort: 'none', param: 'reasoning_effort' }, temperature: 0.2, toolChoice: 'required', tools: [{ name: 'f' }] }),
    undefined,
    'none: no constraint applies',
  );

  const levelled = neutralCall({ reasoning: effort }, 'alpha-sonnet-4.6');
  levelled.resolveModel({ ...(catalogue.resolve('alpha-sonnet-4.6') as ModelEntry), reasoning: reasoningSpec({ style: 'level' }) });
  t.match(
    thrown(() => new AlphaTranslator(levelled, 'k').request()),
    { status: 500, message: /reasoning style 'level', which the alpha translator does not speak/ },
    "a style the vendor does not speak is the operator's 500",
  );
  const budgeted = neutralCall({ reasoning: effort }, 'gamma-5.4');
  budgeted.resolveModel({ ...(catalogue.resolve('gamma-5.4') as ModelEntry), reasoning: reasoningSpec({ style: 'budget' }) });
  t.match(await reasoningFields(budgeted).catch((e: unknown) => e), { status: 500 }, 'gamma: likewise');
  const adaptiveBeta = neutralCall({ reasoning: effort }, 'beta-3-flash');
  adaptiveBeta.resolveModel({ ...(catalogue.resolve('beta-3-flash') as ModelEntry), reasoning: reasoningSpec({ style: 'adaptive' }) });
  t.match(await reasoningFields(adaptiveBeta).catch((e: unknown) => e), { status: 500 }, 'beta: likewise');
});
