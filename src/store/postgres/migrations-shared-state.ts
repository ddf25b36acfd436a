/**
 * PostgreSQL migrations 5 onwards: the state several instances share — spend leases, the rate
 * cap, key change notifications, admin lockouts — and what came after (as src/store/sqlite/migrations-shared-state.ts). The list is continued
 * from migrations.ts; never edit a shipped one.
 */
import type { Migration } from '../migration.js';
import { GRANT_FUNCTION } from './functions-grants.js';
import { ADMIT_RUNS_FUNCTION } from './functions-runs.js';
import { ADMIT_FUNCTION, ADMIT_FUNCTION_2, RESERVE_FUNCTION, TAKE_THEN_ADMIT_FUNCTION, TAKE_THEN_ADMIT_FUNCTION_2 } from './functions.js';
import { KEYS_CHANGED_TRIGGERS } from './functions-keys.js';
import { RATE_TAKE_FUNCTION, RATE_TAKE_FUNCTION_2, RATE_TAKE_FUNCTION_3 } from './functions-rate.js';

export const PG_SHARED_STATE_MIGRATIONS: readonly Migration[] = [
  {
    version: 5,
    name: 'leases',
    sql: `
      -- A reservation is a lease (NULL: made before leases, held until released).
      ALTER TABLE reservations ADD COLUMN expires_at bigint;
      CREATE INDEX reservations_by_key_expiry ON reservations(key_id, cycle, expires_at);
      DROP INDEX reservations_by_key;
      CREATE INDEX reservations_by_expiry ON reservations(expires_at);
      ${RESERVE_FUNCTION}
    `,
  },
  {
    version: 6,
    name: 'rate cap',
    sql: `
      CREATE TABLE rate_counters (
        key_id    text PRIMARY KEY,
        admitted  bigint NOT NULL,
        rpm_limit integer NOT NULL
      );
      CREATE TABLE rate_slots (
        key_id text NOT NULL,
        slot   integer NOT NULL,
        at     bigint NOT NULL,
        PRIMARY KEY (key_id, slot)
      );
      CREATE INDEX rate_slots_by_time ON rate_slots(at);
      ${RATE_TAKE_FUNCTION}
    `,
  },
  {
    version: 7,
    name: 'key change notifications',
    sql: KEYS_CHANGED_TRIGGERS,
  },
  {
    version: 9,
    name: 'admin lockouts',
    sql: `
      CREATE TABLE admin_failures (
        address       text PRIMARY KEY,
        window_start  bigint NOT NULL,
        failures      integer NOT NULL,
        lockout_noted boolean NOT NULL
      );
      CREATE INDEX admin_failures_by_start ON admin_failures(window_start);
    `,
  },
  {
    version: 12,
    name: 'upstream cost limit',
    sql: `
      ALTER TABLE keys ADD COLUMN monthly_upstream_limit_nano bigint;
      -- upstream_nano: the cycle's settled upstream cost (the ledger's list_nano), from the
      -- ledger so far; reserved_upstream_nano (PostgreSQL only, like reserved_nano): what the
      -- cycle's reservations hold of it.
      ALTER TABLE spend ADD COLUMN upstream_nano bigint NOT NULL DEFAULT 0,
        ADD COLUMN reserved_upstream_nano bigint NOT NULL DEFAULT 0;
      UPDATE spend s SET upstream_nano = (SELECT COALESCE(SUM(l.list_nano), 0) FROM ledger l
        WHERE l.key_id = s.key_id AND l.cycle = s.cycle);
      ALTER TABLE reservations ADD COLUMN upstream_nano bigint NOT NULL DEFAULT 0;
      ${ADMIT_FUNCTION}
    `,
  },
  {
    version: 14,
    name: 'leaner admissions',
    sql: `
      ${ADMIT_FUNCTION_2}
      ${RATE_TAKE_FUNCTION_2}
      ${TAKE_THEN_ADMIT_FUNCTION}
    `,
  },
  {
    version: 15,
    name: 'rate cap ring',
    // rate_counters.rpm_limit becomes the ring size: a lower limit no longer moves the slots.
    sql: RATE_TAKE_FUNCTION_3,
  },
  {
    version: 19,
    name: 'leaner admissions, take two',
    sql: `
      -- An instance's leftover reservations are released once, at its start: a scan of the few
      -- rows in flight does, and every admission writes one index entry less.
      DROP INDEX reservations_by_instance;
      ${TAKE_THEN_ADMIT_FUNCTION_2}
    `,
  },
  {
    version: 20,
    name: 'admissions by runs of one key',
    // A batch's admissions in one call of gateway_admit_runs, which decides a run of one key's calls at once.
    sql: ADMIT_RUNS_FUNCTION,
  },
  {
    version: 22,
    name: 'admissions granted ahead',
    // An instance busy on one key takes a few admissions at once, in the background (gateway_grant).
    sql: GRANT_FUNCTION,
  },
];
