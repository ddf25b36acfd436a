import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

/**
 * Reads the ledger tables of a gateway's SQLite file through a second, read-only connection:
 * what another process (or the gateway after a crash) would see committed.
 */

export interface LedgerDbRow {
  key_id: string;
  model: string;
  family: string;
  endpoint: string;
  stream: number;
  status: number;
  outcome: string;
  attempts: number;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  usage_estimated: number;
  charged_nano: number;
  list_nano: number;
  upstream_ms: number | null;
  ttft_ms: number | null;
  deployment: string | null;
  admitted_at: number;
  cycle: string;
}

export interface KeySpend {
  key_id: string;
  cycle: string;
  /** The cycle's spend as the store keeps it. */
  spent_nano: number;
  /** The sum of the key's ledger rows in that cycle. */
  rows_nano: number;
  /** The cycle's upstream cost as the store keeps it. */
  upstream_nano: number;
  /** The sum of the upstream cost (list_nano) of the key's rows in that cycle. */
  rows_upstream_nano: number;
}

/** Every key's spend and upstream cost beside the sums of its rows, in one statement: the same SQL on both backends. */
export const SPEND_BESIDE_ROWS = `SELECT key_id, cycle, charged_nano AS spent_nano, upstream_nano,
    (SELECT COALESCE(SUM(l.charged_nano), 0) FROM ledger l WHERE l.key_id = s.key_id AND l.cycle = s.cycle) AS rows_nano,
    (SELECT COALESCE(SUM(l.list_nano), 0) FROM ledger l WHERE l.key_id = s.key_id AND l.cycle = s.cycle) AS rows_upstream_nano
  FROM spend s`;

export interface LedgerDb {
  rows(keyId?: string): LedgerDbRow[];
  /** Reservations held, of every instance or of one. */
  reservations(instance?: string): number;
  /** Every key's spend beside the sum of its rows, read in one statement (one snapshot). */
  spend(): KeySpend[];
  close(): void;
}

export function openLedgerDb(path: string): LedgerDb {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const all = db.prepare('SELECT * FROM ledger ORDER BY id');
  const byKey = db.prepare('SELECT * FROM ledger WHERE key_id = ? ORDER BY id');
  const held = db.prepare('SELECT COUNT(*) FROM reservations').pluck();
  const heldBy = db.prepare('SELECT COUNT(*) FROM reservations WHERE instance = ?').pluck();
  const spend = db.prepare(SPEND_BESIDE_ROWS);
  return {
    rows: (keyId) => (keyId === undefined ? all.all() : byKey.all(keyId)) as LedgerDbRow[],
    reservations: (instance) => (instance === undefined ? held.get() : heldBy.get(instance)) as number,
    spend: () => spend.all() as KeySpend[],
    close: () => db.close(),
  };
}

/**
 * A key's ledger rows on either backend of a harness (harness-database.ts): read from its SQLite
 * file, or on PostgreSQL from the rows of every table as JSON (`databaseText`), the ledger's told
 * by their columns; `stream` and `cached` as 0 or 1 on both.
 */
export async function harnessLedgerRows(h: { dbPath: string; databaseText(): Promise<string> }, keyId: string): Promise<LedgerDbRow[]> {
  if (existsSync(h.dbPath)) {
    const ledger = openLedgerDb(h.dbPath);
    try {
      return ledger.rows(keyId);
    } finally {
      ledger.close();
    }
  }
  return (await h.databaseText())
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((row) => row['key_id'] === keyId && 'list_nano' in row && 'admitted_at' in row)
    .sort((a, b) => Number(a['id']) - Number(b['id']))
    .map((row) => ({ ...row, stream: Number(row['stream']), cached: Number(row['cached']) }) as unknown as LedgerDbRow);
}
