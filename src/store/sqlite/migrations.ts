/**
 * The core's numbered migrations, applied in order at start inside one IMMEDIATE transaction
 * each (migrate.ts). Never edit a migration that has shipped: add the next number (5 onwards
 * live in migrations-shared-state.ts). The numbers missing (8, 10, 11, 13, 16, 17, 18, 21) made
 * tables a plugin now owns: they are on that plugin's track (docs/plugins.md, "A plugin's own
 * state").
 */
import type { Migration } from '../migration.js';
import { SHARED_STATE_MIGRATIONS } from './migrations-shared-state.js';

export type { Migration };

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
    version: 2,
    name: 'ledger',
    sql: `
      -- One row per call that reached an upstream. Money in integer nano-dollars (1e-9 USD).
      CREATE TABLE ledger (
        id                INTEGER PRIMARY KEY,
        admitted_at       INTEGER NOT NULL,     -- epoch ms of admission
        cycle             TEXT NOT NULL,        -- billing cycle of admission, YYYY-MM (UTC)
        key_id            TEXT NOT NULL REFERENCES keys(id),
        model             TEXT NOT NULL,        -- canonical ID
        family            TEXT NOT NULL,
        endpoint          TEXT NOT NULL,
        stream            INTEGER NOT NULL,
        status            INTEGER NOT NULL,     -- HTTP status sent (499: the caller went away)
        outcome           TEXT NOT NULL,
        attempts          INTEGER NOT NULL,
        prompt_tokens     INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        usage_estimated   INTEGER NOT NULL,     -- 1: counted from relayed deltas, no vendor count
        charged_nano      INTEGER NOT NULL,
        list_nano         INTEGER NOT NULL,
        upstream_ms       REAL,
        ttft_ms           REAL
      );
      CREATE INDEX ledger_by_key_time ON ledger(key_id, admitted_at);
      -- Settled spend per key and cycle, kept in the same transaction as the rows it sums.
      CREATE TABLE spend (
        key_id       TEXT NOT NULL REFERENCES keys(id),
        cycle        TEXT NOT NULL,
        charged_nano INTEGER NOT NULL,
        PRIMARY KEY (key_id, cycle)
      ) WITHOUT ROWID;
      -- What admitted calls hold until their row settles them. AUTOINCREMENT: an id is never reused.
      CREATE TABLE reservations (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        key_id      TEXT NOT NULL,
        cycle       TEXT NOT NULL,
        amount_nano INTEGER NOT NULL,
        instance    TEXT NOT NULL,              -- the gateway instance holding it
        created_at  INTEGER NOT NULL
      );
      CREATE INDEX reservations_by_key ON reservations(key_id, cycle);
      CREATE INDEX reservations_by_instance ON reservations(instance);
    `,
  },
  {
    version: 3,
    name: 'per-key rate limits',
    // Until the status plugin owned its state, migration 3 ('operations') also made the status
    // site's tables: they are the status plugin's migration 3 now.
    sql: `
      -- Per-key requests-per-minute cap (rate-limit plugin): NULL = the configured default, 0 = none.
      ALTER TABLE keys ADD COLUMN rpm_limit INTEGER;
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
  ...SHARED_STATE_MIGRATIONS,
  {
    version: 24,
    name: 'the deployment of each ledger row',
    // The upstream deployment of the answering attempt (docs/deployments.md); NULL for rows from before, and calls with no attempt.
    sql: 'ALTER TABLE ledger ADD COLUMN deployment TEXT;',
  },
  {
    version: 25,
    name: 'response cache',
    sql: `
      -- The response cache (plugins/response-cache): a ledger row answered from it, at no cost, and
      -- a key's default time to live of its answers there (NULL: none, the cache is off for it).
      ALTER TABLE ledger ADD COLUMN cached INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE keys ADD COLUMN cache_ttl_s INTEGER;
    `,
  },
  {
    version: 26,
    name: 'ledger cache tokens',
    sql: `
      -- The prompt tokens the vendor read from and wrote to its prompt cache (subsets of
      -- prompt_tokens, priced at the model's cache rates in list_nano). Rows before it: 0.
      ALTER TABLE ledger ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE ledger ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 27,
    name: 'ledger one-hour cache writes',
    // Of cache_write_tokens, those written for an hour (alpha's ttl 1h), priced at the model's
    // cache_write_1h rate in list_nano (docs/caching.md#pricing). Rows before it: 0.
    sql: 'ALTER TABLE ledger ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;',
  },
  {
    version: 28,
    name: 'rate cap headroom',
    // PostgreSQL only: its take's statement reads the headroom in a function (SqliteRateStore.headroom here).
    sql: '-- nothing to do on SQLite',
  },
  {
    version: 29,
    name: 'ledger reasoning tokens',
    // Reasoning tokens of the completion, when the vendor says (as on PostgreSQL); rows before it: 0.
    sql: 'ALTER TABLE ledger ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;',
  },
];
