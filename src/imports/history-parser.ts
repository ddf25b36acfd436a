import { parse as parseCsv } from 'csv-parse/sync';
import type { Catalogue } from '../catalogue/catalogue.js';
import { parseUsd } from '../catalogue/money.js';
import type { ImportedUsageRow } from '../store/store.js';

/**
 * Usage-history exports (CSV or JSON: date, model, input tokens, output tokens, cost) →
 * rows with model IDs normalised through the catalogue. All or nothing: a single bad row
 * rejects the whole upload, and every bad row is reported with its line (CSV) or item (JSON).
 */

export type HistoryFormat = 'csv' | 'json';

export const MAX_HISTORY_ROWS = 100_000;
const MAX_REPORTED = 20;

export class HistoryError extends Error {
  constructor(
    readonly problems: string[],
    total: number,
  ) {
    const shown = problems.slice(0, MAX_REPORTED).join('; ');
    const more = total > MAX_REPORTED ? `; and ${total - MAX_REPORTED} more` : '';
    super(`The history has ${total} bad ${total === 1 ? 'row' : 'rows'}; nothing was imported. ${shown}${more}.`);
    this.name = 'HistoryError';
  }
}

/** Column names an export may use for each field (compared lower-cased, spaces as underscores). */
const COLUMNS = {
  date: ['date', 'day'],
  model: ['model', 'model_id'],
  input_tokens: ['input_tokens', 'prompt_tokens'],
  output_tokens: ['output_tokens', 'completion_tokens'],
  cost: ['cost', 'cost_usd', 'usage'],
} as const;
type Field = keyof typeof COLUMNS;

export interface ParsedHistory {
  rows: ImportedUsageRow[];
  /** Model names of the export that the catalogue does not know, kept apart from projections. */
  unknownModels: string[];
}

const normaliseName = (name: string): string => name.trim().toLowerCase().replace(/\s+/g, '_');

function pick(record: Record<string, unknown>, field: Field): unknown {
  for (const name of COLUMNS[field]) if (name in record) return record[name];
  return undefined;
}

function tokens(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

function cost(value: unknown): number | undefined {
  // A JSON export's float is read at nano-dollar precision; a CSV's text is read as written.
  const text = typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value.toFixed(9) : typeof value === 'string' ? value.trim() : '';
  try {
    return parseUsd(text.replace(/^\$/, ''));
  } catch {
    return undefined;
  }
}

function day(value: unknown): string | undefined {
  const text = typeof value === 'string' ? value.trim() : '';
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ].*)?$/.exec(text);
  if (!match) return undefined;
  const date = match[1] as string;
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(date) ? date : undefined;
}

/** Checks one record; returns the row or the reasons it is bad. */
function readRecord(record: Record<string, unknown>, catalogue: Catalogue): ImportedUsageRow | string[] {
  const problems: string[] = [];
  const date = day(pick(record, 'date'));
  if (!date) problems.push('date must be YYYY-MM-DD');
  const modelValue = pick(record, 'model');
  const model = typeof modelValue === 'string' ? modelValue.trim() : '';
  if (!model) problems.push('model is missing');
  const input = tokens(pick(record, 'input_tokens'));
  if (input === undefined) problems.push('input_tokens must be a whole number ≥ 0');
  const output = tokens(pick(record, 'output_tokens'));
  if (output === undefined) problems.push('output_tokens must be a whole number ≥ 0');
  const paid = cost(pick(record, 'cost'));
  if (paid === undefined) problems.push('cost must be a dollar amount ≥ 0');
  if (problems.length) return problems;
  return {
    day: date as string,
    modelRaw: model,
    modelId: catalogue.resolve(model)?.id ?? null,
    inputTokens: input as number,
    outputTokens: output as number,
    costNanos: paid as number,
  };
}

/** Records with their position for error messages ("line 4", "item 2"). */
type Located = Array<{ where: string; record: Record<string, unknown> }>;

function csvRecords(content: string): Located {
  let parsed: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    parsed = parseCsv<(typeof parsed)[number]>(content, {
      columns: (header: string[]) => header.map(normaliseName),
      skip_empty_lines: true,
      trim: true,
      bom: true,
      info: true,
    });
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new HistoryError([`${line ? `line ${line}: ` : ''}${(error as Error).message}`], 1);
  }
  return parsed.map(({ record, info }) => ({ where: `line ${info.lines}`, record }));
}

function jsonRecords(content: string): Located {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    throw new HistoryError([`not valid JSON (${(error as Error).message})`], 1);
  }
  const items = Array.isArray(value) ? value : (value as { data?: unknown } | null)?.data;
  if (!Array.isArray(items)) throw new HistoryError(['expected an array of rows (or {"data": [...]})'], 1);
  return items.map((item, index) => {
    const record = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : {};
    return { where: `item ${index + 1}`, record: Object.fromEntries(Object.entries(record).map(([k, v]) => [normaliseName(k), v])) };
  });
}

/** Reads records of any source (an upload or a connector) into rows; throws HistoryError listing every bad one. */
export function readHistoryRecords(records: Located, catalogue: Catalogue): ParsedHistory {
  if (records.length > MAX_HISTORY_ROWS) throw new HistoryError([`at most ${MAX_HISTORY_ROWS} rows per upload`], 1);
  const rows: ImportedUsageRow[] = [];
  const problems: string[] = [];
  let bad = 0;
  for (const { where, record } of records) {
    const result = readRecord(record, catalogue);
    if (Array.isArray(result)) {
      bad += 1;
      problems.push(`${where}: ${result.join(', ')}`);
    } else {
      rows.push(result);
    }
  }
  if (bad) throw new HistoryError(problems, bad);
  const unknownModels = [...new Set(rows.filter((r) => r.modelId === null).map((r) => r.modelRaw))].sort();
  return { rows, unknownModels };
}

export function parseHistory(format: HistoryFormat, content: string, catalogue: Catalogue): ParsedHistory {
  const records = format === 'csv' ? csvRecords(content) : jsonRecords(content);
  if (records.length === 0) throw new HistoryError(['the history has no rows'], 1);
  return readHistoryRecords(records, catalogue);
}
