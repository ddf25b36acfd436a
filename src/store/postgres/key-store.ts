import type { Pool } from 'pg';
import { randomToken } from '../../keys/key-material.js';
import { KEY_BY_HASH_SELECT, KEY_SELECT, keyPatchColumns, toKey, type KeyRow, type KeyValueRow } from '../rows.js';
import type { KeyPatch, KeyRecord, KeyRotation, KeyStore, KeyValueMatch, NewKey, SettingsStore } from '../store.js';
import { inTransaction } from './pool.js';

// Named: prepared once per connection, not parsed and planned on every request.
const BY_HASH = { name: 'key_by_hash', text: `${KEY_BY_HASH_SELECT} WHERE v.hash = $1` };
const BY_ID = `${KEY_SELECT} WHERE k.id = $1`;

/** Keys and their values in PostgreSQL. Lookups by value are remembered by the factory's wrapper (recent-keys.ts). */
export class PgKeyStore implements KeyStore {
  constructor(private readonly pool: Pool) {}

  async create(input: NewKey): Promise<KeyRecord> {
    const id = `key_${randomToken(20)}`;
    // One statement: the key and its first value land together.
    await this.pool.query(
      `WITH k AS (
         INSERT INTO keys (id, name, models, monthly_ceiling_nano, monthly_upstream_limit_nano, status, expires_at, rpm_limit, cache_ttl_s, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $10, 'active', $5, $6, $11, $7, $7) RETURNING id)
       INSERT INTO key_values (hash, key_id, display, created_at, valid_until) SELECT $8::bytea, id, $9::text, $7::bigint, NULL FROM k`,
      [
        id,
        input.name,
        input.models === null ? null : JSON.stringify(input.models),
        input.monthlyCeilingNanos,
        input.expiresAt,
        input.rpmLimit ?? null,
        input.now,
        input.valueHash,
        input.display,
        input.monthlyUpstreamLimitNanos ?? null,
        input.cacheTtlS ?? null,
      ],
    );
    const key = await this.get(id);
    if (!key) throw new Error(`key ${id} vanished`);
    return key;
  }

  async findByValueHash(hash: Buffer): Promise<KeyValueMatch | undefined> {
    const row = (await this.pool.query<KeyValueRow>({ ...BY_HASH, values: [hash] })).rows[0];
    return row && { key: toKey(row), valueHash: row.value_hash, validUntil: row.value_valid_until };
  }

  async get(id: string): Promise<KeyRecord | undefined> {
    const row = (await this.pool.query<KeyRow>(BY_ID, [id])).rows[0];
    return row ? toKey(row) : undefined;
  }

  async list(): Promise<KeyRecord[]> {
    return (await this.pool.query<KeyRow>(`${KEY_SELECT} ORDER BY k.created_at, k.id COLLATE "C"`)).rows.map(toKey);
  }

  async count(): Promise<number> {
    return (await this.pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM keys')).rows[0]?.n ?? 0;
  }

  async update(id: string, patch: KeyPatch, now: number): Promise<KeyRecord | undefined> {
    const columns = keyPatchColumns(patch);
    const sets = [...columns.map(([column], i) => `${column} = $${i + 1}`), `updated_at = $${columns.length + 1}`];
    const values = [...columns.map(([, value]) => value), now, id];
    const result = await this.pool.query(`UPDATE keys SET ${sets.join(', ')} WHERE id = $${values.length}`, values);
    return result.rowCount ? this.get(id) : undefined;
  }

  async revoke(id: string, now: number): Promise<KeyRecord | undefined> {
    const result = await this.pool.query("UPDATE keys SET status = 'revoked', revoked_at = COALESCE(revoked_at, $1), updated_at = $1 WHERE id = $2", [now, id]);
    return result.rowCount ? this.get(id) : undefined;
  }

  async rotate(id: string, rotation: KeyRotation): Promise<KeyRecord | undefined> {
    // Statement by statement after the key's row is locked: a concurrent rotation waits for
    // the lock, then sees (and retires) the value this one added — one snapshot per statement.
    const rotated = await inTransaction(this.pool, async (client) => {
      const touched = await client.query('UPDATE keys SET rotated_at = $1, updated_at = $1 WHERE id = $2', [rotation.now, id]);
      if (!touched.rowCount) return false;
      await client.query('DELETE FROM key_values WHERE key_id = $1 AND valid_until IS NOT NULL AND valid_until <= $2', [id, rotation.now]);
      await client.query('UPDATE key_values SET valid_until = $1 WHERE key_id = $2 AND valid_until IS NULL', [rotation.previousValidUntil, id]);
      await client.query('INSERT INTO key_values (hash, key_id, display, created_at, valid_until) VALUES ($1, $2, $3, $4, NULL)', [
        rotation.valueHash,
        id,
        rotation.display,
        rotation.now,
      ]);
      return true;
    });
    return rotated ? this.get(id) : undefined;
  }
}

export class PgSettingsStore implements SettingsStore {
  constructor(private readonly pool: Pool) {}

  async get(name: string): Promise<string | undefined> {
    return (await this.pool.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name])).rows[0]?.value;
  }

  async set(name: string, value: string): Promise<void> {
    await this.pool.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value', [name, value]);
  }

  async claim(name: string, value: string): Promise<boolean> {
    // A concurrent insert of the same name waits for the first to commit, then does nothing.
    const result = await this.pool.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, value]);
    return result.rowCount === 1;
  }
}
