import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { randomToken } from '../../keys/key-material.js';
import type { StatusStore } from '../status.js';
import { KEY_BY_HASH_SELECT, KEY_SELECT, keyPatchColumns, toKey, type KeyRow, type KeyValueRow } from '../rows.js';
import type { AuditStore, ImportStore, KeyPatch, KeyRecord, KeyRotation, KeyStore, KeyValueMatch, LedgerStore, NewKey, SettingsStore, Store } from '../store.js';
import { SqliteAuditStore, SqliteImportStore } from './imports-store.js';
import { BACKSTOP_PAGES, Checkpointer, DEFAULT_PAGES } from './checkpointer.js';
import { SqliteLedgerStore } from './ledger-store.js';
import { MIGRATIONS } from './migrations.js';
import { SqliteStatusStore } from './status-store.js';

type Db = Database.Database;

const CHECKPOINT_INTERVAL_MS = 500;

/**
 * SQLite's page cache per connection, KiB. better-sqlite3 builds SQLite with a 16 MiB default,
 * which the growing ledger fills over minutes: it was the whole of the gateway's RSS growth in
 * the soak (`npm run bench -- --soak`). The hot path touches the spend and reservation rows and
 * the right edge of the ledger's B-trees; 4 MiB holds them with room for the usage queries.
 */
export const PAGE_CACHE_KIB = 4096;

/** The settings of the gateway's connection, applied before migrations. */
export function configureConnection(db: Db): void {
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a commit survives a process crash (it is in the WAL file, in the OS's
  // cache); the last commits before a power loss or OS crash may not (docs/money.md).
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
}

export function migrate(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of [...MIGRATIONS].sort((a, b) => a.version - b.version)) {
    // IMMEDIATE: two processes starting on one file cannot both apply the same migration.
    db.transaction(() => {
      if (applied.get(migration.version)) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
    }).immediate();
  }
}

/** Keys and their values. Lookups by value are remembered by the factory's wrapper (recent-keys.ts), not here. */
class SqliteKeyStore implements KeyStore {
  private readonly insertKey;
  private readonly insertValue;
  private readonly byHash;
  private readonly byId;
  private readonly all;
  private readonly countAll;
  private readonly revokeStmt;
  private readonly rotateTx;

  constructor(private readonly db: Db) {
    this.insertKey = db.prepare(`INSERT INTO keys
      (id, name, models, monthly_ceiling_nano, status, expires_at, rpm_limit, created_at, updated_at)
      VALUES (@id, @name, @models, @ceiling, 'active', @expiresAt, @rpmLimit, @now, @now)`);
    this.insertValue = db.prepare(
      'INSERT INTO key_values (hash, key_id, display, created_at, valid_until) VALUES (?, ?, ?, ?, NULL)',
    );
    this.byHash = db.prepare(`${KEY_BY_HASH_SELECT} WHERE v.hash = ?`);
    this.byId = db.prepare(`${KEY_SELECT} WHERE k.id = ?`);
    this.all = db.prepare(`${KEY_SELECT} ORDER BY k.created_at, k.id`);
    this.countAll = db.prepare('SELECT COUNT(*) AS n FROM keys').pluck();
    this.revokeStmt = db.prepare(
      "UPDATE keys SET status = 'revoked', revoked_at = COALESCE(revoked_at, ?), updated_at = ? WHERE id = ?",
    );
    const touchRotated = db.prepare('UPDATE keys SET rotated_at = ?, updated_at = ? WHERE id = ?');
    const dropSpent = db.prepare('DELETE FROM key_values WHERE key_id = ? AND valid_until IS NOT NULL AND valid_until <= ?');
    const retireCurrent = db.prepare('UPDATE key_values SET valid_until = ? WHERE key_id = ? AND valid_until IS NULL');
    this.rotateTx = db.transaction((id: string, rotation: KeyRotation): boolean => {
      if (!touchRotated.run(rotation.now, rotation.now, id).changes) return false;
      dropSpent.run(id, rotation.now);
      retireCurrent.run(rotation.previousValidUntil, id);
      this.insertValue.run(rotation.valueHash, id, rotation.display, rotation.now);
      return true;
    });
  }

  async create(input: NewKey): Promise<KeyRecord> {
    const id = `key_${randomToken(20)}`;
    this.db.transaction(() => {
      this.insertKey.run({
        id,
        name: input.name,
        models: input.models === null ? null : JSON.stringify(input.models),
        ceiling: input.monthlyCeilingNanos,
        expiresAt: input.expiresAt,
        rpmLimit: input.rpmLimit ?? null,
        now: input.now,
      });
      this.insertValue.run(input.valueHash, id, input.display, input.now);
    })();
    return this.mustGet(id);
  }

  async findByValueHash(hash: Buffer): Promise<KeyValueMatch | undefined> {
    const row = this.byHash.get(hash) as KeyValueRow | undefined;
    return row && { key: toKey(row), valueHash: row.value_hash, validUntil: row.value_valid_until };
  }

  async get(id: string): Promise<KeyRecord | undefined> {
    const row = this.byId.get(id) as KeyRow | undefined;
    return row ? toKey(row) : undefined;
  }

  async list(): Promise<KeyRecord[]> {
    return (this.all.all() as KeyRow[]).map(toKey);
  }

  async count(): Promise<number> {
    return this.countAll.get() as number;
  }

  async update(id: string, patch: KeyPatch, now: number): Promise<KeyRecord | undefined> {
    const columns = keyPatchColumns(patch);
    const sets = [...columns.map(([column]) => `${column} = ?`), 'updated_at = ?'];
    const result = this.db.prepare(`UPDATE keys SET ${sets.join(', ')} WHERE id = ?`).run(...columns.map(([, value]) => value), now, id);
    return result.changes ? this.get(id) : undefined;
  }

  async revoke(id: string, now: number): Promise<KeyRecord | undefined> {
    const result = this.revokeStmt.run(now, now, id);
    return result.changes ? this.get(id) : undefined;
  }

  async rotate(id: string, rotation: KeyRotation): Promise<KeyRecord | undefined> {
    return this.rotateTx.immediate(id, rotation) ? this.get(id) : undefined;
  }

  private async mustGet(id: string): Promise<KeyRecord> {
    const key = await this.get(id);
    if (!key) throw new Error(`key ${id} vanished`);
    return key;
  }
}

class SqliteSettingsStore implements SettingsStore {
  private readonly read;
  private readonly write;

  constructor(db: Db) {
    this.read = db.prepare('SELECT value FROM settings WHERE name = ?').pluck();
    this.write = db.prepare(
      'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value',
    );
  }

  async get(name: string): Promise<string | undefined> {
    return this.read.get(name) as string | undefined;
  }

  async set(name: string, value: string): Promise<void> {
    this.write.run(name, value);
  }
}

export class SqliteStore implements Store {
  readonly keys: KeyStore;
  readonly settings: SettingsStore;
  readonly imports: ImportStore;
  readonly audit: AuditStore;
  readonly ledger: LedgerStore;
  readonly status: StatusStore;

  private constructor(
    private readonly db: Db,
    private readonly checkpointer: Checkpointer | null,
  ) {
    this.keys = new SqliteKeyStore(db);
    this.settings = new SqliteSettingsStore(db);
    this.imports = new SqliteImportStore(db);
    this.audit = new SqliteAuditStore(db);
    this.ledger = new SqliteLedgerStore(db);
    this.status = new SqliteStatusStore(db);
  }

  /**
   * Opens (creating if needed) the database file, sets WAL and runs pending migrations.
   * `checkpointIntervalMs`: how often the background worker checkpoints (500 ms).
   */
  static open(path: string, checkpointIntervalMs = CHECKPOINT_INTERVAL_MS): SqliteStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    configureConnection(db);
    migrate(db);
    if (path === ':memory:') return new SqliteStore(db, null);
    // Checkpoints (and their fsyncs) run in a worker, off the event loop; see checkpointer.ts.
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    const checkpointer = new Checkpointer(path, checkpointIntervalMs, () => {
      if (db.open) db.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
    });
    return new SqliteStore(db, checkpointer);
  }

  async checkWritable(): Promise<void> {
    this.db.prepare("INSERT INTO settings (name, value) VALUES ('ready_probe', '1') ON CONFLICT(name) DO NOTHING").run();
  }

  async close(): Promise<void> {
    await this.checkpointer?.close();
    if (this.db.open) this.db.close();
  }
}
