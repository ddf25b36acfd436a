import t from 'tap';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';
import { formatUsd } from '../../src/catalogue/money.js';
import { HistoryError, parseHistory } from '../../src/imports/history-parser.js';
import { recogniseKey } from '../../src/imports/key-kinds.js';
import { projectSavings } from '../../src/imports/savings.js';

/** Imported history without a gateway: the parser, the savings projection, key kinds (the import API itself: test/e2e/imports.test.ts). */

const catalogue = loadCatalogue('config/models.yaml');

t.test('the history parser: CSV and JSON, aliases normalised, unknown models kept apart', async (t) => {
  const csv = [
    'Date,Model,Input Tokens,Output Tokens,Cost',
    '2026-10-01,alpha-sonnet-4-6,1000,2000,0.0300',
    '2026-10-02,GAMMA-5.4,500,1000,"0.01"',
    '',
    '2026-10-03,gpt-legacy-9,10,20,$0.001',
  ].join('\n');
  const parsed = parseHistory('csv', csv, catalogue);
  t.equal(parsed.rows.length, 3);
  t.same(parsed.rows[0], {
    day: '2026-10-01',
    modelRaw: 'alpha-sonnet-4-6',
    modelId: 'alpha-sonnet-4.6',
    inputTokens: 1000,
    outputTokens: 2000,
    costNanos: 30_000_000,
  });
  t.equal(parsed.rows[1]?.modelId, 'gamma-5.4');
  t.equal(parsed.rows[2]?.modelId, null);
  t.same(parsed.unknownModels, ['gpt-legacy-9']);

  const json = parseHistory(
    'json',
    JSON.stringify({ data: [{ date: '2026-10-05T10:00:00Z', model: 'beta-3.1-pro-preview', prompt_tokens: 1, completion_tokens: 2, cost: 0.000001 }] }),
    catalogue,
  );
  t.same(json.rows[0], { day: '2026-10-05', modelRaw: 'beta-3.1-pro-preview', modelId: 'beta-3.1-pro', inputTokens: 1, outputTokens: 2, costNanos: 1000 });
});

t.test('the history parser reports every bad row with its line and imports nothing', async (t) => {
  const csv = [
    'date,model,input_tokens,output_tokens,cost',
    '2026-10-01,gamma-5.4,10,20,0.1',
    '2026-13-01,gamma-5.4,10,20,0.1',
    '2026-10-02,,10,2.5,0.1',
    '2026-10-03,gamma-5.4,-1,20,lots',
    '2026-10-04,gamma-5.4,10,20,0.2',
  ].join('\n');
  const error = (() => {
    try {
      parseHistory('csv', csv, catalogue);
      return undefined;
    } catch (e) {
      return e as HistoryError;
    }
  })();
  t.type(error, HistoryError);
  t.equal(error?.problems.length, 3);
  t.match(error?.message, /3 bad rows; nothing was imported/);
  t.match(error?.problems[0], /^line 3: date must be YYYY-MM-DD$/);
  t.match(error?.problems[1], /^line 4: model is missing, output_tokens must be a whole number/);
  t.match(error?.problems[2], /^line 5: input_tokens must be a whole number ≥ 0, cost must be a dollar amount/);
  t.throws(() => parseHistory('csv', 'date,model\n"2026-10-01,x', catalogue), HistoryError, 'broken CSV quoting');
  t.throws(() => parseHistory('json', '{"rows": 1}', catalogue), { message: /expected an array/ });
  t.throws(() => parseHistory('json', '[{"date":"2026-10-01"}]', catalogue), { message: /item 1: model is missing/ });
  t.throws(() => parseHistory('csv', 'date,model,input_tokens,output_tokens,cost\n', catalogue), { message: /no rows/ });
});

t.test('savings projection against hand-computed figures', async (t) => {
  const rows = [
    // 1,000,000 output tokens of alpha-opus-4.6: list $15.00, charged $7.50 → saves $7.50
    { day: '2026-10-01', modelRaw: 'alpha-opus-4.6', modelId: 'alpha-opus-4.6', inputTokens: 0, outputTokens: 1_000_000, costNanos: 15_000_000_000 },
    // 40 output tokens of beta-3-flash: list 40 × 75 n$ = 3000 n$, charged 40 × 38 = 1520 n$ → saves 1480 n$
    { day: '2026-10-05', modelRaw: 'beta-3-flash', modelId: 'beta-3-flash', inputTokens: 7, outputTokens: 40, costNanos: 3000 },
    // unknown model: left out of the projection, counted in what was paid elsewhere
    { day: '2026-10-10', modelRaw: 'mystery', modelId: null, inputTokens: 1, outputTokens: 999, costNanos: 5_000_000 },
  ];
  const projection = projectSavings(rows, catalogue);
  t.equal(projection.from, '2026-10-01');
  t.equal(projection.to, '2026-10-10');
  t.equal(projection.days, 10);
  t.equal(projection.savingsNanos, 7_500_001_480);
  t.equal(formatUsd(projection.savingsNanos), '7.50000148');
  // monthly = savings × 30 / 10 days = 22.50000444
  t.equal(formatUsd(projection.monthlySavingsNanos), '22.50000444');
  t.equal(formatUsd(projection.listNanos), '15.000003');
  t.equal(formatUsd(projection.chargedNanos), '7.50000152');
  t.equal(formatUsd(projection.paidElsewhereNanos), '15.005003');
  t.same(projection.unknownModels, ['mystery']);
  t.same(
    projection.perModel.map((m) => m.model),
    ['alpha-opus-4.6', 'beta-3-flash'],
  );
  t.equal(projectSavings([], catalogue).monthlySavingsNanos, 0);
});

t.test('key kinds are recognised by prefix; only a fingerprint and the last 4 are kept', async (t) => {
  t.match(recogniseKey('qua-1234567890abcd'), { prefix: 'qua-', kind: 'gateway', description: 'another gateway', last4: 'abcd' });
  t.match(recogniseKey('sk-proj-abcdefghij'), { kind: 'vendor', description: 'an upstream model vendor' });
  t.match(recogniseKey(' or-v1-0123456789 '), { kind: 'aggregator', last4: '6789' });
  t.equal(recogniseKey('sl-abcdefghijklmnop'), undefined);
  t.equal(recogniseKey('qua-short'), undefined);
  t.equal(recogniseKey('qua-has space inside'), undefined);
  t.equal(recogniseKey('qua-1234567890abcd')?.fingerprint.length, 64);
});
