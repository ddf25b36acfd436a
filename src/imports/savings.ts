import type { Catalogue } from '../catalogue/catalogue.js';
import type { Nanos } from '../catalogue/money.js';
import type { ImportedUsageRow } from '../store/store.js';

/**
 * The projected savings had an imported key's traffic gone through this gateway:
 * per model, output tokens × (list price − charged price), over the history's span, scaled
 * to a 30-day month. Unknown models are left out (and listed); input tokens are free here,
 * as the catalogue's input prices are 0.
 */

export const PROJECTION_ASSUMPTIONS: readonly string[] = [
  'The same models and the same output volume as in the imported history.',
  "Savings per model = output tokens × (the vendor's list price − this gateway's price), per the catalogue.",
  'A month is 30 days: monthly savings = savings over the history × 30 ÷ the number of days it spans.',
  'Models the catalogue does not know are left out.',
];

export interface ModelSavings {
  model: string;
  outputTokens: number;
  listNanos: Nanos;
  chargedNanos: Nanos;
  savingsNanos: Nanos;
}

export interface SavingsProjection {
  from: string | null;
  to: string | null;
  /** Days from the first to the last date of the history, both included. */
  days: number;
  perModel: ModelSavings[];
  outputTokens: number;
  listNanos: Nanos;
  chargedNanos: Nanos;
  savingsNanos: Nanos;
  monthlySavingsNanos: Nanos;
  /** What the imported traffic cost where it ran (all rows, as exported). */
  paidElsewhereNanos: Nanos;
  unknownModels: string[];
}

const DAY_MS = 86_400_000;
const spanDays = (from: string, to: string): number => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;

export function projectSavings(rows: readonly ImportedUsageRow[], catalogue: Catalogue): SavingsProjection {
  const days = rows.map((r) => r.day).sort();
  const from = days[0] ?? null;
  const to = days[days.length - 1] ?? null;
  const byModel = new Map<string, ModelSavings>();
  const unknown = new Set<string>();
  let paidElsewhereNanos = 0;
  for (const row of rows) {
    paidElsewhereNanos += row.costNanos;
    const model = row.modelId ? catalogue.resolve(row.modelId) : undefined;
    if (!model) {
      unknown.add(row.modelRaw);
      continue;
    }
    const entry = byModel.get(model.id) ?? { model: model.id, outputTokens: 0, listNanos: 0, chargedNanos: 0, savingsNanos: 0 };
    entry.outputTokens += row.outputTokens;
    entry.listNanos += row.outputTokens * model.output.listNanosPerToken;
    entry.chargedNanos += row.outputTokens * model.output.chargedNanosPerToken;
    entry.savingsNanos = entry.listNanos - entry.chargedNanos;
    byModel.set(model.id, entry);
  }
  const perModel = [...byModel.values()].sort((a, b) => b.savingsNanos - a.savingsNanos || a.model.localeCompare(b.model));
  const sum = (pickField: (m: ModelSavings) => number): number => perModel.reduce((total, m) => total + pickField(m), 0);
  const savingsNanos = sum((m) => m.savingsNanos);
  const span = from && to ? spanDays(from, to) : 0;
  return {
    from,
    to,
    days: span,
    perModel,
    outputTokens: sum((m) => m.outputTokens),
    listNanos: sum((m) => m.listNanos),
    chargedNanos: sum((m) => m.chargedNanos),
    savingsNanos,
    monthlySavingsNanos: span ? Math.round((savingsNanos * 30) / span) : 0,
    paidElsewhereNanos,
    unknownModels: [...unknown].sort(),
  };
}
