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
  {
    version: 4,
    name: 'imports and audit',
    sql: `
      -- Keys of other gateways, vendors and aggregators pasted into the dashboard: only a
      -- fingerprint and the last 4 characters are kept, never the value.
      CREATE TABLE imported_keys (
        id          TEXT PRIMARY KEY,
        kind        TEXT NOT NULL CHECK (kind IN ('qua-', 'sk-', 'or-')),
        fingerprint TEXT NOT NULL UNIQUE,      -- hex SHA-256 of the value
        last4       TEXT NOT NULL,
        label       TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      -- Their usage history, mirrored from an uploaded export or a connector.
      CREATE TABLE imported_usage (
        import_id     TEXT NOT NULL REFERENCES imported_keys(id) ON DELETE CASCADE,
        day           TEXT NOT NULL,           -- YYYY-MM-DD
        model_raw     TEXT NOT NULL,           -- as the export wrote it
        model_id      TEXT,                    -- canonical catalogue ID; NULL = unknown model
        input_tokens  INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cost_nano     INTEGER NOT NULL         -- what the traffic cost elsewhere
      );
      CREATE INDEX imported_usage_by_import ON imported_usage(import_id, day);
      -- Every admin action: who (admin token fingerprint), what, when, and how it ended.
      CREATE TABLE audit_log (
        id      INTEGER PRIMARY KEY,
        at      INTEGER NOT NULL,
        actor   TEXT NOT NULL,
        action  TEXT NOT NULL,
        target  TEXT,
        status  INTEGER NOT NULL
      );
      CREATE INDEX audit_log_by_time ON audit_log(at);
    `,
  },
];
