import type { Nanos } from '../../../src/plugin-api.js';

/**
 * One call as the request log keeps it (docs/request-log.md): what happened and what it cost,
 * never a body or a header value. `id` sorts by `at` (a time-ordered id), so the log's order,
 * its time filters and its cursor are all one index.
 */
export interface RequestRecord {
  id: string;
  /** Epoch ms the call was admitted (the ledger row's `admittedAt`). */
  at: number;
  keyId: string;
  /** The canonical model, or the name the caller asked for when it was not resolved; null when none was named. */
  model: string | null;
  /** The endpoint's name (`chat.completions`, `responses`, `messages`, `gemini.generate_content`, …). */
  endpoint: string;
  stream: boolean;
  /** The deployment of the last upstream attempt; null when no attempt was made. */
  deployment: string | null;
  status: number;
  outcome: string;
  /** From the call's arrival to its completion, ms to 0.1. */
  latencyMs: number;
  /** From the call's arrival to the first byte of a streamed answer, ms to 0.1; null for a whole reply or no answer. */
  ttftMs: number | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** What the caller is charged, and the upstream's list cost, in nanodollars (the ledger row's). */
  chargedNanos: Nanos;
  upstreamNanos: Nanos;
  attempts: number;
  /** Answered from the response cache. */
  cacheHit: boolean;
  /** The W3C trace id when telemetry is on. */
  traceId: string | null;
}

/** A range of statuses: one code (`[404, 405)`) or a class (`4xx`: `[400, 500)`). */
export type StatusFilter = { code: number } | { classOf: number };

/** A page of the log: newest first, every filter optional. */
export interface RequestQuery {
  keyId?: string;
  model?: string;
  endpoint?: string;
  status?: StatusFilter;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
  /** The id of the last record of the page before: only older ones. */
  before?: string;
  limit: number;
}

export interface RequestLogStore {
  /** Appends `records` in one write (a batch of the plugin's queue, or a test's bulk load). */
  append(records: readonly RequestRecord[]): Promise<void>;
  /** The records `query` selects, newest first, at most `query.limit`. */
  list(query: RequestQuery): Promise<RequestRecord[]>;
  get(id: string): Promise<RequestRecord | null>;
  /** Deletes the records of calls before `olderThan` (epoch ms) and all but the `keepAtMost` newest, in chunks; resolves with how many went. */
  prune(olderThan: number, keepAtMost: number): Promise<number>;
}

/** The prefix of every record id; the time-ordered part follows it (the `ids` toolkit's `mintTimedId`). */
export const ID_PREFIX = 'req_';

/** The smallest id a record of a call at `ms` can have: time bounds become id bounds. */
export const idAtTime = (ms: number): string => ID_PREFIX + Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');

/** The columns of the table in the order every statement names them. */
export const COLUMNS = [
  'id',
  'at',
  'key_id',
  'model',
  'endpoint',
  'stream',
  'deployment',
  'status',
  'outcome',
  'latency_ms',
  'ttft_ms',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'charged_nano',
  'upstream_nano',
  'attempts',
  'cache_hit',
  'trace_id',
] as const;

type Column = (typeof COLUMNS)[number];
/** A row as a driver answers it: PostgreSQL's bigint comes as a string, SQLite's booleans as 0/1. */
export type RecordRow = Record<Column, string | number | boolean | null>;

/** A record's values in `COLUMNS` order (booleans as the backend's `toFlag` writes them). */
export function valuesOf(r: RequestRecord, toFlag: (flag: boolean) => number | boolean): unknown[] {
  return [
    r.id,
    r.at,
    r.keyId,
    r.model,
    r.endpoint,
    toFlag(r.stream),
    r.deployment,
    r.status,
    r.outcome,
    r.latencyMs,
    r.ttftMs,
    r.inputTokens,
    r.outputTokens,
    r.cacheReadTokens,
    r.cacheWriteTokens,
    r.reasoningTokens,
    r.chargedNanos,
    r.upstreamNanos,
    r.attempts,
    toFlag(r.cacheHit),
    r.traceId,
  ];
}

const text = (value: RecordRow[Column]): string | null => (value === null ? null : String(value));

export function recordOf(row: RecordRow): RequestRecord {
  return {
    id: String(row.id),
    at: Number(row.at),
    keyId: String(row.key_id),
    model: text(row.model),
    endpoint: String(row.endpoint),
    stream: Boolean(row.stream),
    deployment: text(row.deployment),
    status: Number(row.status),
    outcome: String(row.outcome),
    latencyMs: Number(row.latency_ms),
    ttftMs: row.ttft_ms === null ? null : Number(row.ttft_ms),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cacheReadTokens: Number(row.cache_read_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    reasoningTokens: Number(row.reasoning_tokens),
    chargedNanos: Number(row.charged_nano),
    upstreamNanos: Number(row.upstream_nano),
    attempts: Number(row.attempts),
    cacheHit: Boolean(row.cache_hit),
    traceId: text(row.trace_id),
  };
}

/**
 * The SELECT of a page, with the backend's placeholders (`mark(n)` for the n-th value, from 1)
 * and its values. Every filter is an equality on an indexed column or a range of the id, so a
 * page walks one index from the cursor down: `(key_id, id)`, `(model, id)`, `(endpoint, id)`,
 * `(status, id)` or the primary key (a status class is a range of the status, read in id order).
 */
export function pageQuery(query: RequestQuery, mark: (n: number) => string): { sql: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (condition: (placeholder: string) => string, value: unknown): void => {
    values.push(value);
    where.push(condition(mark(values.length)));
  };
  if (query.keyId !== undefined) add((p) => `key_id = ${p}`, query.keyId);
  if (query.model !== undefined) add((p) => `model = ${p}`, query.model);
  if (query.endpoint !== undefined) add((p) => `endpoint = ${p}`, query.endpoint);
  if (query.status && 'code' in query.status) add((p) => `status = ${p}`, query.status.code);
  if (query.status && 'classOf' in query.status) {
    add((p) => `status >= ${p}`, query.status.classOf * 100);
    add((p) => `status < ${p}`, query.status.classOf * 100 + 100);
  }
  if (query.since !== undefined) add((p) => `id >= ${p}`, idAtTime(query.since));
  if (query.until !== undefined) add((p) => `id < ${p}`, idAtTime(query.until));
  if (query.before !== undefined) add((p) => `id < ${p}`, query.before);
  values.push(query.limit);
  const filter = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
  return { sql: `SELECT ${COLUMNS.join(', ')} FROM request_log ${filter} ORDER BY id DESC LIMIT ${mark(values.length)}`, values };
}
