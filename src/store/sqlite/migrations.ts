/**
 * Numbered migrations, applied in order at start inside one IMMEDIATE transaction each.
 * Never edit a migration that has shipped: add the next number.
 */
import type { Migration } from '../migration.js';

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
  {
    version: 5,
    name: 'leases',
    sql: `
      -- A reservation is a lease: its instance renews it while the call runs; once it ends
      -- (the instance died) it no longer counts and is swept. NULL: a reservation made before
      -- leases, held until released as before.
      ALTER TABLE reservations ADD COLUMN expires_at INTEGER;
      -- An admission finds its key's ended leases without reading the live ones; the sweep, every key's.
      CREATE INDEX reservations_by_key_expiry ON reservations(key_id, cycle, expires_at);
      DROP INDEX reservations_by_key;
      CREATE INDEX reservations_by_expiry ON reservations(expires_at);
    `,
  },
  {
    version: 6,
    name: 'rate cap',
    sql: `
      -- The per-key rate cap across processes (src/store/limits.ts): how many calls the key
      -- was admitted, under which limit; and slot n % limit: the time of admission n - limit.
      CREATE TABLE rate_counters (
        key_id    TEXT PRIMARY KEY,
        admitted  INTEGER NOT NULL,
        rpm_limit INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE rate_slots (
        key_id TEXT NOT NULL,
        slot   INTEGER NOT NULL,
        at     INTEGER NOT NULL,
        PRIMARY KEY (key_id, slot)
      ) WITHOUT ROWID;
      CREATE INDEX rate_slots_by_time ON rate_slots(at);
    `,
  },
  {
    version: 7,
    name: 'key change notifications',
    // PostgreSQL only (LISTEN/NOTIFY): instances on one SQLite file rely on the one-second memory.
    sql: '-- nothing to do on SQLite',
  },
  {
    version: 8,
    name: 'shared incident watch',
    sql: `
      -- The model an automatic incident was opened for: at most one open per model, whichever
      -- instance opens it (NULL: manual, reopened by hand, or opened before this migration).
      ALTER TABLE incidents ADD COLUMN watch_model TEXT;
      CREATE UNIQUE INDEX incidents_one_open_per_watched_model ON incidents(watch_model)
        WHERE watch_model IS NOT NULL AND resolved_at IS NULL;
      -- Upstream attempts and failures per model and 10-s slot, summed over every instance.
      CREATE TABLE incident_attempts (
        model    TEXT NOT NULL,
        slot     INTEGER NOT NULL,              -- epoch ms of the slot's start
        attempts INTEGER NOT NULL,
        errors   INTEGER NOT NULL,
        PRIMARY KEY (model, slot)
      ) WITHOUT ROWID;
      CREATE INDEX incident_attempts_by_slot ON incident_attempts(slot);
    `,
  },
  {
    version: 9,
    name: 'admin lockouts',
    sql: `
      -- Failed admin-token attempts per client address (behind trusted proxies), one fixed
      -- window each, counted by every instance (src/store/limits.ts).
      CREATE TABLE admin_failures (
        address       TEXT PRIMARY KEY,
        window_start  INTEGER NOT NULL,
        failures      INTEGER NOT NULL,
        lockout_noted INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX admin_failures_by_start ON admin_failures(window_start);
    `,
  },
  {
    version: 10,
    name: 'thought signatures',
    sql: `
      -- Beta's thought signatures by key and tool-call id, for follow-up calls on any
      -- instance; kept a day (plugins/vendor-beta/thought-signatures.ts).
      CREATE TABLE thought_signatures (
        key_id     TEXT NOT NULL,
        call_id    TEXT NOT NULL,
        signature  TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (key_id, call_id)
      ) WITHOUT ROWID;
      CREATE INDEX thought_signatures_by_expiry ON thought_signatures(expires_at);
    `,
  },
  {
    version: 11,
    name: 'responses',
    sql: `
      -- Responses API responses kept for previous_response_id (store: true), per key, for the
      -- usage window (pruned by age); items are bounded by the ingress-responses plugin.
      CREATE TABLE responses (
        id          TEXT PRIMARY KEY,          -- resp_…
        key_id      TEXT NOT NULL REFERENCES keys(id),
        previous_id TEXT,                      -- the response it continued; NULL = none
        created_at  INTEGER NOT NULL,          -- epoch ms
        items       TEXT NOT NULL              -- JSON {"input": [items], "output": [items]}
      );
      CREATE INDEX responses_by_time ON responses(created_at);
    `,
  },
  {
    version: 12,
    name: 'upstream cost limit',
    sql: `
      -- A key's optional monthly limit on its upstream cost: its calls at the vendors' list
      -- prices (the ledger's list_nano), what the operator pays. NULL = none.
      ALTER TABLE keys ADD COLUMN monthly_upstream_limit_nano INTEGER;
      -- The cycle's upstream cost, settled by the same rows as charged_nano: from the ledger so far.
      ALTER TABLE spend ADD COLUMN upstream_nano INTEGER NOT NULL DEFAULT 0;
      UPDATE spend SET upstream_nano = (SELECT COALESCE(SUM(l.list_nano), 0) FROM ledger l
        WHERE l.key_id = spend.key_id AND l.cycle = spend.cycle);
      -- A reservation also holds the most its call can cost upstream (0: taken before this migration).
      ALTER TABLE reservations ADD COLUMN upstream_nano INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 13,
    name: 'status endpoints',
    sql: `
      -- Status site: each model's requests per minute by endpoint name (chat.completions,
      -- responses, messages, …), for the 24 h breakdown; written and pruned with the minute rollups.
      CREATE TABLE status_endpoint_minutes (
        minute   INTEGER NOT NULL,              -- epoch ms of the minute
        model    TEXT NOT NULL,                 -- canonical model ID
        endpoint TEXT NOT NULL,                 -- endpoint name
        requests INTEGER NOT NULL,
        PRIMARY KEY (minute, model, endpoint)
      ) WITHOUT ROWID;
    `,
  },
];
