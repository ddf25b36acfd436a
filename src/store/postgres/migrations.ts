import type { Migration } from '../migration.js';
import { RATE_HEADROOM_FUNCTION } from './functions-rate.js';
import { PG_SHARED_STATE_MIGRATIONS } from './migrations-shared-state.js';

/**
 * The PostgreSQL schema: the same numbered migrations, tables, columns and meaning as
 * src/store/sqlite/migrations.ts, in PostgreSQL's types — `bigint` for money (nano-dollars),
 * counts and epoch-ms times, `bytea` for hashes, `boolean` for flags, `double precision` for
 * latencies, JSON lists as text (read by the same code on both backends). Additions, each
 * named where it appears: `spend.reserved_nano` and `spend.reserved_upstream_nano`, and functions for the
 * decisions that must read under a row lock taken first (a single statement reads from a
 * snapshot older than the lock). Never edit a migration that has shipped: add the next number
 * (on both backends; from 5 on, in migrations-shared-state.ts). The numbers missing here (8, 10,
 * 11, 13, 16, 17, 18, 21) made tables a plugin now owns: they are on that plugin's track
 * (docs/plugins.md, "A plugin's own state").
 */
export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'keys',
    sql: `
      CREATE TABLE keys (
        id                   text PRIMARY KEY,
        name                 text NOT NULL,
        models               text,              -- JSON array of canonical IDs; NULL = all models
        monthly_ceiling_nano bigint,            -- NULL = no ceiling
        status               text NOT NULL CHECK (status IN ('active', 'revoked')),
        expires_at           bigint,            -- epoch ms; NULL = never
        created_at           bigint NOT NULL,
        updated_at           bigint NOT NULL,
        revoked_at           bigint,
        rotated_at           bigint
      );
      CREATE TABLE key_values (
        hash        bytea PRIMARY KEY,          -- SHA-256 of the value; the value itself is never stored
        key_id      text NOT NULL REFERENCES keys(id) ON DELETE CASCADE,
        display     text NOT NULL,
        created_at  bigint NOT NULL,
        valid_until bigint
      );
      CREATE INDEX key_values_by_key ON key_values(key_id, valid_until);
      CREATE TABLE settings (
        name  text PRIMARY KEY,
        value text NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'ledger',
    sql: `
      CREATE TABLE ledger (
        id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        admitted_at       bigint NOT NULL,
        cycle             text NOT NULL,
        key_id            text NOT NULL REFERENCES keys(id),
        model             text NOT NULL,
        family            text NOT NULL,
        endpoint          text NOT NULL,
        stream            boolean NOT NULL,
        status            integer NOT NULL,
        outcome           text NOT NULL,
        attempts          integer NOT NULL,
        prompt_tokens     bigint NOT NULL,
        completion_tokens bigint NOT NULL,
        usage_estimated   boolean NOT NULL,
        charged_nano      bigint NOT NULL,
        list_nano         bigint NOT NULL,
        upstream_ms       double precision,
        ttft_ms           double precision
      );
      CREATE INDEX ledger_by_key_time ON ledger(key_id, admitted_at);
      -- reserved_nano (PostgreSQL only): what the cycle's reservations hold, kept in the same
      -- statement as every reservation added or dropped. Admission locks this one row and
      -- decides on it in a single statement; summing the reservations instead would read them
      -- from a snapshot taken before the lock was granted (READ COMMITTED) and miss a
      -- reservation committed in between.
      CREATE TABLE spend (
        key_id        text NOT NULL REFERENCES keys(id),
        cycle         text NOT NULL,
        charged_nano  bigint NOT NULL,
        reserved_nano bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, cycle)
      );
      CREATE TABLE reservations (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- never reused
        key_id      text NOT NULL,
        cycle       text NOT NULL,
        amount_nano bigint NOT NULL,
        instance    text NOT NULL,
        created_at  bigint NOT NULL
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
      ALTER TABLE keys ADD COLUMN rpm_limit integer;
    `,
  },
  {
    version: 4,
    name: 'imports and audit',
    sql: `
      CREATE TABLE imported_keys (
        id          text PRIMARY KEY,
        kind        text NOT NULL CHECK (kind IN ('qua-', 'sk-', 'or-')),
        fingerprint text NOT NULL UNIQUE,
        last4       text NOT NULL,
        label       text NOT NULL,
        created_at  bigint NOT NULL,
        updated_at  bigint NOT NULL
      );
      CREATE TABLE imported_usage (
        import_id     text NOT NULL REFERENCES imported_keys(id) ON DELETE CASCADE,
        day           text NOT NULL,
        model_raw     text NOT NULL,
        model_id      text,
        input_tokens  bigint NOT NULL,
        output_tokens bigint NOT NULL,
        cost_nano     bigint NOT NULL
      );
      CREATE INDEX imported_usage_by_import ON imported_usage(import_id, day);
      CREATE TABLE audit_log (
        id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at      bigint NOT NULL,
        actor   text NOT NULL,
        action  text NOT NULL,
        target  text,
        status  integer NOT NULL
      );
      CREATE INDEX audit_log_by_time ON audit_log(at);
    `,
  },
  ...PG_SHARED_STATE_MIGRATIONS,
  {
    version: 24,
    name: 'the deployment of each ledger row',
    // The upstream deployment of the answering attempt (docs/deployments.md); NULL for rows from before, and calls with no attempt.
    sql: 'ALTER TABLE ledger ADD COLUMN deployment text;',
  },
  {
    version: 25,
    name: 'response cache',
    sql: `
      -- The response cache (plugins/response-cache): a ledger row answered from it, at no cost, and
      -- a key's default time to live of its answers there (NULL: none, the cache is off for it).
      ALTER TABLE ledger ADD COLUMN cached boolean NOT NULL DEFAULT false;
      ALTER TABLE keys ADD COLUMN cache_ttl_s integer;
    `,
  },
  {
    version: 26,
    name: 'ledger cache tokens',
    sql: `
      -- The prompt tokens the vendor read from and wrote to its prompt cache (subsets of
      -- prompt_tokens, priced at the model's cache rates in list_nano). Rows before it: 0; a
      -- constant default adds the columns without rewriting the table.
      ALTER TABLE ledger ADD COLUMN cache_read_tokens bigint NOT NULL DEFAULT 0,
        ADD COLUMN cache_write_tokens bigint NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 27,
    name: 'ledger one-hour cache writes',
    // Of cache_write_tokens, those written for an hour (alpha's ttl 1h), priced at the model's
    // cache_write_1h rate in list_nano (docs/caching.md#pricing). Rows before it: 0.
    sql: 'ALTER TABLE ledger ADD COLUMN cache_write_1h_tokens bigint NOT NULL DEFAULT 0;',
  },
  {
    version: 28,
    name: 'rate cap headroom',
    // A take's answer carries the key's headroom after it (the rate-limit headers): gateway_rate_headroom.
    sql: RATE_HEADROOM_FUNCTION,
  },
  {
    version: 29,
    name: 'ledger reasoning tokens',
    sql: `
      -- The completion tokens the model spent reasoning (a subset of completion_tokens), when the
      -- vendor says; rows before it: 0 (the dashboard's usage page sums them).
      ALTER TABLE ledger ADD COLUMN reasoning_tokens bigint NOT NULL DEFAULT 0;
    `,
  },
];
