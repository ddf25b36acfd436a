/**
 * SQLite migrations 5 onwards: the state several instances (or worker processes) share —
 * spend leases, the rate cap, incidents, admin lockouts, thought signatures, stored responses —
 * and what came after. The list is continued from migrations.ts; never edit a shipped one.
 */
import type { Migration } from '../migration.js';

export const SHARED_STATE_MIGRATIONS: readonly Migration[] = [
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
  {
    version: 14,
    name: 'leaner admissions',
    // PostgreSQL only: its admission and rate-cap functions take the common case in fewer statements.
    sql: '-- nothing to do on SQLite',
  },
  {
    version: 15,
    name: 'rate cap ring',
    // No schema change: rate_counters.rpm_limit is from now on the key's ring size, the largest
    // limit a take brought (src/store/sqlite/rate-store.ts); a lower limit no longer moves slots.
    sql: '-- nothing to do on SQLite',
  },
  {
    version: 16,
    name: 'responses by key',
    sql: `
      -- A key's responses newest first: the prune keeps each key's newest within its byte budget
      -- (the ingress-responses plugin's max_stored_bytes_per_key) and deletes the older ones.
      CREATE INDEX responses_by_key ON responses(key_id, created_at, id);
    `,
  },
  {
    version: 17,
    name: 'automatic resolves',
    sql: `
      -- The incident watch's last resolve of a model (lastAutomaticResolve): resolved automatic
      -- incidents, newest resolve first, read until the first naming the model — not the whole log.
      CREATE INDEX incidents_automatic_by_resolve ON incidents(resolved_at)
        WHERE automatic = 1 AND resolved_at IS NOT NULL;
    `,
  },
  {
    version: 18,
    name: 'responses without an index by time',
    sql: `
      -- A commit writes every page it touched to the WAL whole, so each index of this table cost
      -- a page per commit of a Responses call. The prune by age walks the rows in the order they
      -- were stored (src/store/sqlite/responses-store.ts) and needs no index by time.
      DROP INDEX responses_by_time;
    `,
  },
  {
    version: 19,
    name: 'leaner admissions, take two',
    sql: `
      -- An instance's leftover reservations are released once, at its start: a scan of the few
      -- rows in flight does, and the admission's and the settlement's commits each write one
      -- index page less.
      DROP INDEX reservations_by_instance;
    `,
  },
  {
    version: 20,
    name: 'admissions by runs of one key',
    // PostgreSQL only (gateway_admit_runs): SQLite decides each admission in its group commit's
    // transaction, in the process, with no round trip or lock wait to save.
    sql: '-- nothing to do on SQLite',
  },
  {
    version: 21,
    name: 'response sizes in the index by key',
    sql: `
      -- The trim to a key's byte budget sums its responses' sizes newest first. With the size in
      -- the index (octet_length of text is its stored length), the sums read the index alone:
      -- 0.1 µs a response, against 1.6 µs when each size was read from its row.
      DROP INDEX responses_by_key;
      CREATE INDEX responses_by_key ON responses(key_id, created_at, id, octet_length(items));
    `,
  },
  {
    version: 22,
    name: 'admissions granted ahead',
    // PostgreSQL only (gateway_grant): SQLite admits in the process, with no round trip to save.
    sql: '-- nothing to do on SQLite',
  },
];
