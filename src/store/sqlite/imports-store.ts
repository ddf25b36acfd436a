import type Database from 'better-sqlite3';
import { randomToken } from '../../keys/key-material.js';
import { toImport, toImportedUsage, type ImportedUsageDbRow, type ImportRow } from '../rows.js';
import type { AuditEntry, AuditStore, ImportKind, ImportStore, ImportedKey, ImportedUsageRow } from '../store.js';

export class SqliteImportStore implements ImportStore {
  private readonly byFingerprint;
  private readonly byId;
  private readonly all;
  private readonly insert;
  private readonly touch;
  private readonly clearHistory;
  private readonly insertUsage;
  private readonly selectHistory;
  private readonly deleteImport;

  constructor(private readonly db: Database.Database) {
    this.byFingerprint = db.prepare('SELECT * FROM imported_keys WHERE fingerprint = ?');
    this.byId = db.prepare('SELECT * FROM imported_keys WHERE id = ?');
    this.all = db.prepare('SELECT * FROM imported_keys ORDER BY created_at, id');
    this.insert = db.prepare('INSERT INTO imported_keys (id, kind, fingerprint, last4, label, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.touch = db.prepare('UPDATE imported_keys SET label = ?, updated_at = ? WHERE id = ?');
    this.clearHistory = db.prepare('DELETE FROM imported_usage WHERE import_id = ?');
    this.insertUsage = db.prepare(`INSERT INTO imported_usage
      (import_id, day, model_raw, model_id, input_tokens, output_tokens, cost_nano) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    this.selectHistory = db.prepare('SELECT * FROM imported_usage WHERE import_id = ? ORDER BY day, model_raw');
    this.deleteImport = db.prepare('DELETE FROM imported_keys WHERE id = ?');
  }

  async upsert(
    input: { kind: ImportKind; fingerprint: string; last4: string; label: string; now: number },
    rows: ImportedUsageRow[] | null,
  ): Promise<{ key: ImportedKey; created: boolean }> {
    // All or nothing: the key and its whole history land together, or not at all.
    return this.db
      .transaction(() => {
        const existing = this.byFingerprint.get(input.fingerprint) as ImportRow | undefined;
        const id = existing?.id ?? `imp_${randomToken(16)}`;
        if (existing) this.touch.run(input.label, input.now, id);
        else this.insert.run(id, input.kind, input.fingerprint, input.last4, input.label, input.now, input.now);
        if (rows) {
          this.clearHistory.run(id);
          for (const row of rows) {
            this.insertUsage.run(id, row.day, row.modelRaw, row.modelId, row.inputTokens, row.outputTokens, row.costNanos);
          }
        }
        return { key: toImport(this.byId.get(id) as ImportRow), created: !existing };
      })
      .immediate();
  }

  async list(): Promise<ImportedKey[]> {
    return (this.all.all() as ImportRow[]).map(toImport);
  }

  async get(id: string): Promise<ImportedKey | undefined> {
    const row = this.byId.get(id) as ImportRow | undefined;
    return row ? toImport(row) : undefined;
  }

  async history(id: string): Promise<ImportedUsageRow[]> {
    return (this.selectHistory.all(id) as ImportedUsageDbRow[]).map(toImportedUsage);
  }

  async remove(id: string): Promise<boolean> {
    return this.deleteImport.run(id).changes > 0;
  }
}

export class SqliteAuditStore implements AuditStore {
  private readonly insert;
  private readonly recent;
  private readonly removeOld;

  constructor(db: Database.Database) {
    this.insert = db.prepare('INSERT INTO audit_log (at, actor, action, target, status) VALUES (?, ?, ?, ?, ?)');
    this.recent = db.prepare('SELECT id, at, actor, action, target, status FROM audit_log ORDER BY id DESC LIMIT ?');
    // Ids grow with time: everything at or below the id of the (keepAtMost + 1)-th newest row goes.
    this.removeOld = db.prepare('DELETE FROM audit_log WHERE at < ? OR id <= (SELECT id FROM audit_log ORDER BY id DESC LIMIT 1 OFFSET ?)');
  }

  async record(entry: AuditEntry): Promise<void> {
    this.insert.run(entry.at, entry.actor, entry.action, entry.target, entry.status);
  }

  async list(limit: number): Promise<Array<AuditEntry & { id: number }>> {
    return this.recent.all(limit) as Array<AuditEntry & { id: number }>;
  }

  async prune(olderThan: number, keepAtMost: number): Promise<number> {
    return this.removeOld.run(olderThan, keepAtMost).changes;
  }
}
