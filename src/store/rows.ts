/**
 * What both store backends share: the row shapes their queries return (same column names on
 * SQLite and PostgreSQL), their mapping to the interface's records, and the portable SQL
 * fragments and decisions that do not depend on the dialect. Each backend adds only its
 * placeholders, its transactions and its concurrency control.
 */

import type { CycleSpend, DailyUsage, ImportKind, ImportedKey, ImportedUsageRow, KeyPatch, KeyRecord } from './store.js';

export interface KeyRow {
  id: string;
  name: string;
  /** JSON array of canonical IDs, or NULL for every model. */
  models: string | null;
  monthly_ceiling_nano: number | null;
  monthly_upstream_limit_nano: number | null;
  status: 'active' | 'revoked';
  expires_at: number | null;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
  rotated_at: number | null;
  rpm_limit: number | null;
  cache_ttl_s: number | null;
  display: string;
  /** Absent from the hot-path lookup by value, which does not need it. */
  previous_valid_until?: number | null;
}

/** A key row found by one of its values' hashes. */
export interface KeyValueRow extends KeyRow {
  value_hash: Buffer;
  value_valid_until: number | null;
}

export const toKey = (row: KeyRow): KeyRecord => ({
  id: row.id,
  name: row.name,
  models: row.models === null ? null : (JSON.parse(row.models) as string[]),
  monthlyCeilingNanos: row.monthly_ceiling_nano,
  monthlyUpstreamLimitNanos: row.monthly_upstream_limit_nano,
  status: row.status,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  revokedAt: row.revoked_at,
  rotatedAt: row.rotated_at,
  previousValidUntil: row.previous_valid_until ?? null,
  display: row.display,
  rpmLimit: row.rpm_limit,
  cacheTtlS: row.cache_ttl_s,
});

/** Key columns plus the display of the key's current value and the end of its last rotation's grace (portable SQL). */
export const KEY_SELECT = `
  SELECT k.*, (SELECT v.display FROM key_values v WHERE v.key_id = k.id AND v.valid_until IS NULL) AS display,
    (SELECT MAX(p.valid_until) FROM key_values p WHERE p.key_id = k.id AND p.valid_until IS NOT NULL) AS previous_valid_until
  FROM keys k`;

/** The hot-path lookup by value hash, before its `WHERE v.hash = <placeholder>` (portable SQL). */
export const KEY_BY_HASH_SELECT = `SELECT v.hash AS value_hash, v.valid_until AS value_valid_until, k.*,
    (SELECT c.display FROM key_values c WHERE c.key_id = k.id AND c.valid_until IS NULL) AS display
  FROM key_values v JOIN keys k ON k.id = v.key_id`;

/** The columns a key patch sets and their values, in a fixed order (`updated_at` is the caller's). */
export function keyPatchColumns(patch: KeyPatch): Array<[column: string, value: string | number | null]> {
  const columns: Array<[string, string | number | null]> = [];
  if (patch.name !== undefined) columns.push(['name', patch.name]);
  if (patch.models !== undefined) columns.push(['models', patch.models === null ? null : JSON.stringify(patch.models)]);
  if (patch.monthlyCeilingNanos !== undefined) columns.push(['monthly_ceiling_nano', patch.monthlyCeilingNanos]);
  if (patch.monthlyUpstreamLimitNanos !== undefined) columns.push(['monthly_upstream_limit_nano', patch.monthlyUpstreamLimitNanos]);
  if (patch.expiresAt !== undefined) columns.push(['expires_at', patch.expiresAt]);
  if (patch.rpmLimit !== undefined) columns.push(['rpm_limit', patch.rpmLimit]);
  if (patch.cacheTtlS !== undefined) columns.push(['cache_ttl_s', patch.cacheTtlS]);
  return columns;
}

/** A cycle's spend figures as both backends' queries name them (money in nano-dollars). */
export interface SpendRow {
  spent: number;
  reserved: number;
  upstream_spent: number;
  upstream_reserved: number;
}

export const toCycleSpend = (row: SpendRow): CycleSpend => ({
  spent: row.spent,
  reserved: row.reserved,
  upstreamSpent: row.upstream_spent,
  upstreamReserved: row.upstream_reserved,
});

export interface ImportRow {
  id: string;
  kind: ImportKind;
  fingerprint: string;
  last4: string;
  label: string;
  created_at: number;
  updated_at: number;
}

export const toImport = (row: ImportRow): ImportedKey => ({
  id: row.id,
  kind: row.kind,
  fingerprint: row.fingerprint,
  last4: row.last4,
  label: row.label,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export interface ImportedUsageDbRow {
  day: string;
  model_raw: string;
  model_id: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_nano: number;
}

export const toImportedUsage = (row: ImportedUsageDbRow): ImportedUsageRow => ({
  day: row.day,
  modelRaw: row.model_raw,
  modelId: row.model_id,
  inputTokens: row.input_tokens,
  outputTokens: row.output_tokens,
  costNanos: row.cost_nano,
});

export interface DailyRow {
  day: string;
  model: string;
  endpoint: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  charged_nano: number;
  list_nano: number;
  cached_requests: number;
}

export const toDailyUsage = (row: DailyRow): DailyUsage => ({
  day: row.day,
  model: row.model,
  endpoint: row.endpoint,
  requests: row.requests,
  promptTokens: row.prompt_tokens,
  completionTokens: row.completion_tokens,
  cacheReadTokens: row.cache_read_tokens,
  cacheWriteTokens: row.cache_write_tokens,
  cacheWrite1hTokens: row.cache_write_1h_tokens,
  reasoningTokens: row.reasoning_tokens,
  chargedNanos: row.charged_nano,
  listNanos: row.list_nano,
  cachedRequests: row.cached_requests,
});

/**
 * A failed admin-token attempt (LockoutStore.fail), in portable SQL given each backend's
 * placeholder for parameter n (1: address, 2: now, 3: window length, 4: the "not noted" flag):
 * counted into the address's open window, or a window that starts now. Every SET expression
 * reads the row as it was before the update, on both backends.
 */
export function lockoutFailSql(p: (n: number) => string): string {
  const over = `admin_failures.window_start + ${p(3)} <= ${p(2)}`;
  return `INSERT INTO admin_failures (address, window_start, failures, lockout_noted) VALUES (${p(1)}, ${p(2)}, 1, ${p(4)})
    ON CONFLICT (address) DO UPDATE SET
      window_start = CASE WHEN ${over} THEN ${p(2)} ELSE admin_failures.window_start END,
      failures = CASE WHEN ${over} THEN 1 ELSE admin_failures.failures + 1 END,
      lockout_noted = CASE WHEN ${over} THEN ${p(4)} ELSE admin_failures.lockout_noted END
    RETURNING window_start AS start, failures`;
}

/** The address's open window (parameters: address, window length, now). */
export const lockoutCurrentSql = (p: (n: number) => string): string =>
  `SELECT window_start AS start, failures FROM admin_failures WHERE address = ${p(1)} AND window_start + ${p(2)} > ${p(3)}`;

/** Marks the open window's lockout as noted, if no one has (parameters: the "noted" flag, address, window length, now). */
export const lockoutNoteSql = (p: (n: number) => string): string =>
  `UPDATE admin_failures SET lockout_noted = ${p(1)} WHERE address = ${p(2)} AND window_start + ${p(3)} > ${p(4)} AND lockout_noted <> ${p(1)}`;
