/**
 * SQLite migrations 5 onwards: the state several instances (or worker processes) share —
 * spend leases, the rate cap, admin lockouts — and what came after. The list is continued from migrations.ts; never edit a shipped one.
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
    version: 22,
    name: 'admissions granted ahead',
    // PostgreSQL only (gateway_grant): SQLite admits in the process, with no round trip to save.
    sql: '-- nothing to do on SQLite',
  },
];
