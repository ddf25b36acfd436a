/**
 * PostgreSQL migrations 5 onwards: the state several instances share — spend leases, the rate
 * cap, key change notifications, incidents, admin lockouts, thought signatures, stored responses
 * — and what came after (as src/store/sqlite/migrations-shared-state.ts). The list is continued
 * from migrations.ts; never edit a shipped one.
 */
import type { Migration } from '../migration.js';
import { GRANT_FUNCTION } from './functions-grants.js';
import { ADMIT_RUNS_FUNCTION } from './functions-runs.js';
import { ADMIT_FUNCTION, ADMIT_FUNCTION_2, KEYS_CHANGED_TRIGGERS, RATE_TAKE_FUNCTION, RATE_TAKE_FUNCTION_2, RATE_TAKE_FUNCTION_3, RESERVE_FUNCTION, TAKE_THEN_ADMIT_FUNCTION, TAKE_THEN_ADMIT_FUNCTION_2 } from './functions.js';

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
    version: 8,
    name: 'shared incident watch',
    sql: `
      ALTER TABLE incidents ADD COLUMN watch_model text;
      CREATE UNIQUE INDEX incidents_one_open_per_watched_model ON incidents(watch_model)
        WHERE watch_model IS NOT NULL AND resolved_at IS NULL;
      CREATE TABLE incident_attempts (
        model    text NOT NULL,
        slot     bigint NOT NULL,
        attempts bigint NOT NULL,
        errors   bigint NOT NULL,
        PRIMARY KEY (model, slot)
      );
      CREATE INDEX incident_attempts_by_slot ON incident_attempts(slot);
    `,
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
    version: 10,
    name: 'thought signatures',
    sql: `
      CREATE TABLE thought_signatures (
        key_id     text NOT NULL,
        call_id    text NOT NULL,
        signature  text NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (key_id, call_id)
      );
      CREATE INDEX thought_signatures_by_expiry ON thought_signatures(expires_at);
    `,
  },
  {
    version: 11,
    name: 'responses',
    sql: `
      CREATE TABLE responses (
        id          text PRIMARY KEY,
        key_id      text NOT NULL REFERENCES keys(id),
        previous_id text,
        created_at  bigint NOT NULL,
        items       text NOT NULL
      );
      CREATE INDEX responses_by_time ON responses(created_at);
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
    version: 13,
    name: 'status endpoints',
    sql: `
      CREATE TABLE status_endpoint_minutes (
        minute   bigint NOT NULL,
        model    text NOT NULL,
        endpoint text NOT NULL,
        requests bigint NOT NULL,
        PRIMARY KEY (minute, model, endpoint)
      );
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
    version: 16,
    name: 'responses by key',
    sql: `
      -- A key's responses newest first, for the prune to each key's byte budget.
      CREATE INDEX responses_by_key ON responses(key_id, created_at, id);
    `,
  },
  {
    version: 17,
    name: 'automatic resolves',
    sql: `
      -- The incident watch's last resolve of a model: resolved automatic incidents, newest resolve first.
      CREATE INDEX incidents_automatic_by_resolve ON incidents(resolved_at)
        WHERE automatic AND resolved_at IS NOT NULL;
    `,
  },
  {
    version: 18,
    name: 'responses without an index by time',
    // SQLite only: its WAL writes each touched page whole, so it drops an index its prune can do
    // without; PostgreSQL's WAL records an index entry, not its page, and keeps it.
    sql: '-- nothing to do on PostgreSQL',
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
    version: 21,
    name: 'response sizes in the index by key',
    sql: `
      -- The trim to a key's byte budget sums its responses' sizes newest first. It read each size
      -- from its row (3–4 µs a response); kept in a column the index carries, the sums come from
      -- an index-only scan (0.4 µs). Adding the column rewrites the table once, under its lock:
      -- the stored responses of the last 30 days at most.
      ALTER TABLE responses ADD COLUMN bytes integer GENERATED ALWAYS AS (octet_length(items)) STORED;
      DROP INDEX responses_by_key;
      CREATE INDEX responses_by_key ON responses(key_id, created_at, id) INCLUDE (bytes);
    `,
  },
  {
    version: 22,
    name: 'admissions granted ahead',
    // An instance busy on one key takes a few admissions at once, in the background (gateway_grant).
    sql: GRANT_FUNCTION,
  },
];
