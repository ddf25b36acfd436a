import type Database from 'better-sqlite3';
import { randomToken } from '../../keys/key-material.js';
import { KEY_BY_HASH_SELECT, KEY_SELECT, keyPatchColumns, toKey, type KeyRow, type KeyValueRow } from '../rows.js';
import type { KeyPatch, KeyRecord, KeyRotation, KeyStore, KeyValueMatch, NewKey, SettingsStore } from '../store.js';

type Db = Database.Database;

/** Keys and their values. Lookups by value are remembered by the factory's wrapper (recent-keys.ts), not here. */
export class SqliteKeyStore implements KeyStore {
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
      (id, name, models, monthly_ceiling_nano, monthly_upstream_limit_nano, status, expires_at, rpm_limit, cache_ttl_s, created_at, updated_at)
      VALUES (@id, @name, @models, @ceiling, @upstreamLimit, 'active', @expiresAt, @rpmLimit, @cacheTtlS, @now, @now)`);
    this.insertValue = db.prepare('INSERT INTO key_values (hash, key_id, display, created_at, valid_until) VALUES (?, ?, ?, ?, NULL)');
    this.byHash = db.prepare(`${KEY_BY_HASH_SELECT} WHERE v.hash = ?`);
    this.byId = db.prepare(`${KEY_SELECT} WHERE k.id = ?`);
    this.all = db.prepare(`${KEY_SELECT} ORDER BY k.created_at, k.id`);
    this.countAll = db.prepare('SELECT COUNT(*) AS n FROM keys').pluck();
    this.revokeStmt = db.prepare("UPDATE keys SET status = 'revoked', revoked_at = COALESCE(revoked_at, ?), updated_at = ? WHERE id = ?");
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
        upstreamLimit: input.monthlyUpstreamLimitNanos ?? null,
        expiresAt: input.expiresAt,
        rpmLimit: input.rpmLimit ?? null,
        cacheTtlS: input.cacheTtlS ?? null,
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

export class SqliteSettingsStore implements SettingsStore {
  private readonly read;
  private readonly write;
  private readonly insertNew;

  constructor(db: Db) {
    this.read = db.prepare('SELECT value FROM settings WHERE name = ?').pluck();
    this.write = db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value');
    this.insertNew = db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO NOTHING');
  }

  async get(name: string): Promise<string | undefined> {
    return this.read.get(name) as string | undefined;
  }

  async set(name: string, value: string): Promise<void> {
    this.write.run(name, value);
  }

  async claim(name: string, value: string): Promise<boolean> {
    return this.insertNew.run(name, value).changes === 1;
  }
}
