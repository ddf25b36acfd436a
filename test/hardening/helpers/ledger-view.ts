import pg from 'pg';
import { openLedgerDb, SPEND_BESIDE_ROWS, type KeySpend } from '../../helpers/ledger-db.js';

/**
 * The ledger as another process sees it committed, on either backend: the answered calls'
 * rows, the reservations held, and each key's spend and upstream cost beside the sums of its rows.
 */
export interface LedgerView {
  /** `key_id prompt_tokens` of every row whose outcome is ok. */
  okRows(): Promise<Set<string>>;
  /** Reservations held, of every instance or of one. */
  reservations(instance?: string): Promise<number>;
  /** Read in one statement: one snapshot, even while another process writes. */
  spend(): Promise<KeySpend[]>;
  close(): Promise<void>;
}

export function sqliteView(file: string): LedgerView {
  const db = openLedgerDb(file);
  return {
    okRows: async () =>
      new Set(
        db
          .rows()
          .filter((row) => row.outcome === 'ok')
          .map((row) => `${row.key_id} ${row.prompt_tokens}`),
      ),
    reservations: async (instance) => db.reservations(instance),
    spend: async () => db.spend(),
    close: async () => db.close(),
  };
}

export async function postgresView(url: string): Promise<LedgerView> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const count = async (sql: string, params: unknown[]): Promise<number> => Number((await client.query<{ n: string }>(sql, params)).rows[0]?.n ?? 0);
  return {
    okRows: async () =>
      new Set(
        (await client.query<{ call: string }>("SELECT key_id || ' ' || prompt_tokens AS call FROM ledger WHERE outcome = 'ok'")).rows.map((row) => row.call),
      ),
    reservations: (instance) =>
      instance === undefined
        ? count('SELECT COUNT(*) AS n FROM reservations', [])
        : count('SELECT COUNT(*) AS n FROM reservations WHERE instance = $1', [instance]),
    spend: async () =>
      (await client.query<Record<keyof KeySpend, string>>(SPEND_BESIDE_ROWS)).rows.map((row) => ({
        key_id: row.key_id,
        cycle: row.cycle,
        spent_nano: Number(row.spent_nano),
        rows_nano: Number(row.rows_nano),
        upstream_nano: Number(row.upstream_nano),
        rows_upstream_nano: Number(row.rows_upstream_nano),
      })),
    close: () => client.end(),
  };
}
