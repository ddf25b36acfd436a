import Database from 'better-sqlite3';

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
  usage_estimated: number;
  charged_nano: number;
  list_nano: number;
  upstream_ms: number | null;
  ttft_ms: number | null;
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
}

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
  const spend = db.prepare(
    'SELECT key_id, cycle, charged_nano AS spent_nano, (SELECT COALESCE(SUM(l.charged_nano), 0) FROM ledger l WHERE l.key_id = s.key_id AND l.cycle = s.cycle) AS rows_nano FROM spend s',
  );
  return {
    rows: (keyId) => (keyId === undefined ? all.all() : byKey.all(keyId)) as LedgerDbRow[],
    reservations: (instance) => (instance === undefined ? held.get() : heldBy.get(instance)) as number,
    spend: () => spend.all() as KeySpend[],
    close: () => db.close(),
  };
}
