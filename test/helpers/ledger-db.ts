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

export interface LedgerDb {
  rows(keyId?: string): LedgerDbRow[];
  reservations(): number;
  close(): void;
}

export function openLedgerDb(path: string): LedgerDb {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const all = db.prepare('SELECT * FROM ledger ORDER BY id');
  const byKey = db.prepare('SELECT * FROM ledger WHERE key_id = ? ORDER BY id');
  const held = db.prepare('SELECT COUNT(*) FROM reservations').pluck();
  return {
    rows: (keyId) => (keyId === undefined ? all.all() : byKey.all(keyId)) as LedgerDbRow[],
    reservations: () => held.get() as number,
    close: () => db.close(),
  };
}
