import type { Pool } from 'pg';
import { randomToken } from '../../keys/key-material.js';
import { toImport, toImportedUsage, type ImportedUsageDbRow, type ImportRow } from '../rows.js';
import type { AuditEntry, AuditStore, ImportKind, ImportStore, ImportedKey, ImportedUsageRow } from '../store.js';
import { inTransaction } from './pool.js';

/** A whole history in one statement, column by column, whatever its length. */
const INSERT_HISTORY = `INSERT INTO imported_usage (import_id, day, model_raw, model_id, input_tokens, output_tokens, cost_nano)
  SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])`;

export class PgImportStore implements ImportStore {
  constructor(private readonly pool: Pool) {}

  async upsert(
    input: { kind: ImportKind; fingerprint: string; last4: string; label: string; now: number },
    rows: ImportedUsageRow[] | null,
  ): Promise<{ key: ImportedKey; created: boolean }> {
    // All or nothing: the key and its whole history land together, or not at all. An upsert of
    // the same fingerprint by another connection waits for this one's row (and then updates it).
    return inTransaction(this.pool, async (client) => {
      const inserted = await client.query<ImportRow>(
        `INSERT INTO imported_keys (id, kind, fingerprint, last4, label, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
         ON CONFLICT (fingerprint) DO NOTHING RETURNING *`,
        [`imp_${randomToken(16)}`, input.kind, input.fingerprint, input.last4, input.label, input.now],
      );
      const row =
        inserted.rows[0] ??
        (
          await client.query<ImportRow>('UPDATE imported_keys SET label = $1, updated_at = $2 WHERE fingerprint = $3 RETURNING *', [
            input.label,
            input.now,
            input.fingerprint,
          ])
        ).rows[0];
      if (!row) throw new Error(`import ${input.fingerprint} vanished`);
      if (rows) {
        await client.query('DELETE FROM imported_usage WHERE import_id = $1', [row.id]);
        await client.query(INSERT_HISTORY, [
          row.id,
          rows.map((r) => r.day),
          rows.map((r) => r.modelRaw),
          rows.map((r) => r.modelId),
          rows.map((r) => r.inputTokens),
          rows.map((r) => r.outputTokens),
          rows.map((r) => r.costNanos),
        ]);
      }
      return { key: toImport(row), created: inserted.rows.length > 0 };
    });
  }

  async list(): Promise<ImportedKey[]> {
    return (await this.pool.query<ImportRow>('SELECT * FROM imported_keys ORDER BY created_at, id COLLATE "C"')).rows.map(toImport);
  }

  async get(id: string): Promise<ImportedKey | undefined> {
    const row = (await this.pool.query<ImportRow>('SELECT * FROM imported_keys WHERE id = $1', [id])).rows[0];
    return row ? toImport(row) : undefined;
  }

  async history(id: string): Promise<ImportedUsageRow[]> {
    const sql = 'SELECT * FROM imported_usage WHERE import_id = $1 ORDER BY day COLLATE "C", model_raw COLLATE "C"';
    return (await this.pool.query<ImportedUsageDbRow>(sql, [id])).rows.map(toImportedUsage);
  }

  async remove(id: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM imported_keys WHERE id = $1', [id])).rowCount ?? 0) > 0;
  }
}

export class PgAuditStore implements AuditStore {
  constructor(private readonly pool: Pool) {}

  async record(entry: AuditEntry): Promise<void> {
    await this.pool.query('INSERT INTO audit_log (at, actor, action, target, status) VALUES ($1, $2, $3, $4, $5)', [
      entry.at,
      entry.actor,
      entry.action,
      entry.target,
      entry.status,
    ]);
  }

  async list(limit: number): Promise<Array<AuditEntry & { id: number }>> {
    const sql = 'SELECT id, at, actor, action, target, status FROM audit_log ORDER BY id DESC LIMIT $1';
    return (await this.pool.query<AuditEntry & { id: number }>(sql, [limit])).rows;
  }

  /** Rows older than `olderThan`, and all but the newest `keepAtMost`, go (the same rule as SQLite's). */
  async prune(olderThan: number, keepAtMost: number): Promise<number> {
    const sql = 'DELETE FROM audit_log WHERE at < $1 OR id <= (SELECT id FROM audit_log ORDER BY id DESC LIMIT 1 OFFSET $2)';
    return (await this.pool.query(sql, [olderThan, keepAtMost])).rowCount ?? 0;
  }
}
