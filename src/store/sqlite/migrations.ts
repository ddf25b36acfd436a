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
    version: 3,
    name: 'operations',
    sql: `
      -- Per-key requests-per-minute cap (rate-limit plugin): NULL = the configured default, 0 = none.
      ALTER TABLE keys ADD COLUMN rpm_limit INTEGER;
      -- Status site: traffic per model rolled up per minute (kept ~a day) and per hour (kept ~a month).
      CREATE TABLE status_rollups (
        period   TEXT NOT NULL CHECK (period IN ('minute', 'hour')),
        start    INTEGER NOT NULL,              -- epoch ms of the minute or hour
        model    TEXT NOT NULL,                 -- canonical model ID
        requests INTEGER NOT NULL,
        failures INTEGER NOT NULL,
        PRIMARY KEY (period, start, model)
      ) WITHOUT ROWID;
      -- Latency of successful requests: counts per bucket index (bounds live in the status plugin).
      CREATE TABLE status_latency (
        period TEXT NOT NULL CHECK (period IN ('minute', 'hour')),
        start  INTEGER NOT NULL,
        model  TEXT NOT NULL,
        bucket INTEGER NOT NULL,
        count  INTEGER NOT NULL,
        PRIMARY KEY (period, start, model, bucket)
      ) WITHOUT ROWID;
      CREATE TABLE incidents (
        id          TEXT PRIMARY KEY,
        title       TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('investigating', 'identified', 'monitoring', 'resolved')),
        impact      TEXT NOT NULL CHECK (impact IN ('minor', 'major', 'critical')),
        models      TEXT NOT NULL,              -- JSON array of canonical IDs; [] = the whole gateway
        automatic   INTEGER NOT NULL,
        started_at  INTEGER NOT NULL,
        resolved_at INTEGER,
        updated_at  INTEGER NOT NULL
      );
      CREATE INDEX incidents_by_start ON incidents(started_at);
      CREATE TABLE incident_updates (
        incident_id TEXT NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        at          INTEGER NOT NULL,
        status      TEXT NOT NULL,
        message     TEXT NOT NULL,
        PRIMARY KEY (incident_id, seq)
      ) WITHOUT ROWID;
    `,
  },
];
