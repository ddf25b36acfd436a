/**
 * Numbered migrations, applied in order at start inside one IMMEDIATE transaction each.
 * Never edit a migration that has shipped: add the next number.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'keys',
    sql: `
      CREATE TABLE keys (
        id                   TEXT PRIMARY KEY,
        name                 TEXT NOT NULL,
        models               TEXT,              -- JSON array of canonical IDs; NULL = all models
        monthly_ceiling_nano INTEGER,           -- NULL = no ceiling
        status               TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
        expires_at           INTEGER,           -- epoch ms; NULL = never
        created_at           INTEGER NOT NULL,
        updated_at           INTEGER NOT NULL,
        revoked_at           INTEGER,
        rotated_at           INTEGER
      );
      -- Every value a key has had: the current one (valid_until NULL) and rotated ones in grace.
      CREATE TABLE key_values (
        hash        BLOB PRIMARY KEY,           -- SHA-256 of the value; the value itself is never stored
        key_id      TEXT NOT NULL REFERENCES keys(id) ON DELETE CASCADE,
        display     TEXT NOT NULL,              -- sl-abcd…wxyz
        created_at  INTEGER NOT NULL,
        valid_until INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX key_values_by_key ON key_values(key_id, valid_until);
      CREATE TABLE settings (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
    `,
  },
];
