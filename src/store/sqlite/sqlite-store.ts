import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { randomToken } from '../../keys/key-material.js';
import type { StatusStore } from '../status.js';
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
  // cache); the last commits before a power loss or OS crash may not (README "Money").
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
}

interface KeyRow {
  id: string;
  name: string;
  models: string | null;
  monthly_ceiling_nano: number | null;
  status: 'active' | 'revoked';
  expires_at: number | null;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
  rotated_at: number | null;
  rpm_limit: number | null;
  display: string;
  /** Absent from the hot-path lookup by value, which does not need it. */
  previous_valid_until?: number | null;
}

const toKey = (row: KeyRow): KeyRecord => ({
  id: row.id,
  name: row.name,
  models: row.models === null ? null : (JSON.parse(row.models) as string[]),
  monthlyCeilingNanos: row.monthly_ceiling_nano,
  status: row.status,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  revokedAt: row.revoked_at,
  rotatedAt: row.rotated_at,
  previousValidUntil: row.previous_valid_until ?? null,
  display: row.display,
  rpmLimit: row.rpm_limit,
});

/** Key columns plus the display of the key's current value and the end of its last rotation's grace. */
const KEY_SELECT = `
  SELECT k.*, (SELECT v.display FROM key_values v WHERE v.key_id = k.id AND v.valid_until IS NULL) AS display,
    (SELECT MAX(p.valid_until) FROM key_values p WHERE p.key_id = k.id AND p.valid_until IS NOT NULL) AS previous_valid_until
  FROM keys k`;

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

/** How long, and how many, resolved key values are remembered (see findByValueHash). */
const RECENT_KEYS_MS = 1000;
const RECENT_KEYS_LIMIT = 10_000;

class SqliteKeyStore implements KeyStore {
  private readonly recent = new Map<string, { match: KeyValueMatch; until: number }>();
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
    this.byHash = db.prepare(`SELECT v.hash AS value_hash, v.valid_until AS value_valid_until, k.*,
        (SELECT c.display FROM key_values c WHERE c.key_id = k.id AND c.valid_until IS NULL) AS display
      FROM key_values v JOIN keys k ON k.id = v.key_id WHERE v.hash = ?`);
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
    this.recent.clear();
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

  /**
   * Every request looks its key up by value: recent answers are kept for a second so the hot
   * path rarely reads SQLite. Any key change made through this store clears them at once;
   * changes made by another gateway instance on the same file arrive within the second.
   */
  async findByValueHash(hash: Buffer): Promise<KeyValueMatch | undefined> {
    const id = hash.toString('base64');
    const now = Date.now();
    const recent = this.recent.get(id);
    if (recent && recent.until > now) return recent.match;
    const row = this.byHash.get(hash) as (KeyRow & { value_hash: Buffer; value_valid_until: number | null }) | undefined;
    if (!row) return undefined;
    const match = { key: toKey(row), valueHash: row.value_hash, validUntil: row.value_valid_until };
    if (this.recent.size >= RECENT_KEYS_LIMIT) this.recent.clear();
    this.recent.set(id, { match, until: now + RECENT_KEYS_MS });
    return match;
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
    this.recent.clear();
    const sets: string[] = [];
    const values: Record<string, unknown> = { id, now };
    if (patch.name !== undefined) {
      sets.push('name = @name');
      values['name'] = patch.name;
    }
    if (patch.models !== undefined) {
      sets.push('models = @models');
      values['models'] = patch.models === null ? null : JSON.stringify(patch.models);
    }
    if (patch.monthlyCeilingNanos !== undefined) {
      sets.push('monthly_ceiling_nano = @ceiling');
      values['ceiling'] = patch.monthlyCeilingNanos;
    }
    if (patch.expiresAt !== undefined) {
      sets.push('expires_at = @expiresAt');
      values['expiresAt'] = patch.expiresAt;
    }
    if (patch.rpmLimit !== undefined) {
      sets.push('rpm_limit = @rpmLimit');
      values['rpmLimit'] = patch.rpmLimit;
    }
    sets.push('updated_at = @now');
    const result = this.db.prepare(`UPDATE keys SET ${sets.join(', ')} WHERE id = @id`).run(values);
    return result.changes ? this.get(id) : undefined;
  }

  async revoke(id: string, now: number): Promise<KeyRecord | undefined> {
    this.recent.clear();
    const result = this.revokeStmt.run(now, now, id);
    return result.changes ? this.get(id) : undefined;
  }

  async rotate(id: string, rotation: KeyRotation): Promise<KeyRecord | undefined> {
    this.recent.clear();
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

  /** Opens (creating if needed) the database file, sets WAL and runs pending migrations. */
  static open(path: string): SqliteStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    configureConnection(db);
    migrate(db);
    if (path === ':memory:') return new SqliteStore(db, null);
    // Checkpoints (and their fsyncs) run in a worker, off the event loop; see checkpointer.ts.
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    const checkpointer = new Checkpointer(path, CHECKPOINT_INTERVAL_MS, () => {
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
