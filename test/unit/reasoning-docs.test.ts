import t from 'tap';
import { ADAPTIVE_DEFAULT_EFFORT } from '../../plugins/ingress-messages/read.js';
import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import { reasoningPlan, type ReasoningSetting } from '../../src/neutral/reasoning.js';
import { REASONING_EFFORTS, type ReasoningEffort, type ReasoningRequest } from '../../src/neutral/request.js';
import { codeOf, tableCells } from '../helpers/param-table.js';
import { catalogue } from '../helpers/translate.js';

/**
 * docs/reasoning.md held to the code: the effort table cell by cell against what the plan every
 * vendor translator starts from (src/neutral/reasoning.ts) gives each model of the shipped
 * catalogue at its own output limit; the Messages budgets read as efforts, at each boundary; the
 * effort adaptive thinking asks.
 */

const DOC = 'docs/reasoning.md';

/** A vendor setting as the table writes it. */
function cellOf(setting: ReasoningSetting | undefined): string {
  switch (setting?.kind) {
    case 'off':
      return 'off';
    case 'adaptive':
      return `adaptive \`${setting.effort}\``;
    case 'budget':
      return `budget ${setting.tokens}`;
    case 'level':
      return `\`${setting.level}\``;
    case 'effort':
      return `\`${setting.effort}\``;
    default:
      return 'nothing asked';
  }
}

const settingOf = (reasoning: ReasoningRequest, model: ModelEntry): ReasoningSetting | undefined =>
  reasoningPlan(reasoning, model, model.maxOutputTokens)?.setting;

/** The models a column heading names: one model, or `gamma-*` for every gamma model. */
const modelsOf = (heading: string): ModelEntry[] => {
  const name = codeOf(heading);
  return name.endsWith('-*') ? catalogue.models.filter((model) => model.family === name.slice(0, -2)) : [catalogue.resolve(name) as ModelEntry];
};

t.test('the effort table is what each model of the catalogue is sent', async (t) => {
  const [header = [], ...rows] = tableCells(DOC, 'effort-table');
  const columns = header.slice(1).map(modelsOf);
  const reasoning = catalogue.models.filter((model) => model.reasoning.style !== 'none');
  t.same(
    columns
      .flat()
      .map((model) => model.id)
      .sort(),
    reasoning.map((model) => model.id).sort(),
    'a column for every model that reasons, each once',
  );
  t.same(
    rows.map((row) => codeOf(row[0])),
    [...REASONING_EFFORTS],
    'a row for every effort, in order',
  );
  for (const [effort = '', ...cells] of rows) {
    columns.forEach((models, i) => {
      for (const model of models) {
        t.equal(
          cells[i],
          cellOf(settingOf({ kind: 'effort', effort: codeOf(effort) as ReasoningEffort, param: 'x' }, model)),
          `${codeOf(effort)} → ${model.id}`,
        );
      }
    });
  }
});

t.test('the Messages budgets read as efforts, at each boundary', async (t) => {
  const gamma = catalogue.resolve('gamma-5.4') as ModelEntry;
  const rows = tableCells(DOC, 'budget-efforts').slice(1);
  t.equal(rows.length, 3);
  for (const [range = '', effort = ''] of rows) {
    const bounds = (range.match(/\d+/g) ?? []).map(Number);
    const probes = range.startsWith('up to') ? [1, bounds[0] ?? 0] : range.startsWith('above') ? [(bounds[0] ?? 0) + 1] : bounds;
    for (const tokens of probes)
      t.equal(cellOf(settingOf({ kind: 'budget', tokens, param: 'thinking.budget_tokens' }, gamma)), effort, `${tokens} thinking tokens: ${effort}`);
  }
});

t.test('adaptive thinking without an effort asks the effort the doc names', async (t) => {
  const row = tableCells(DOC, 'format-efforts').find((cells) => cells[1]?.includes('"adaptive"'));
  t.equal(codeOf(row?.[2]), ADAPTIVE_DEFAULT_EFFORT);
});
