/**
 * The shared health of upstream deployments, on its own migration track (`upstream-health`), in
 * each backend's types. Never edit a shipped migration: add the next number, on both backends.
 */
import type { ExtensionMigration } from '../../store/extension.js';

export const SQLITE_HEALTH_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 1,
    name: 'upstream health',
    sql: `
      -- One row per deployment that failed recently: its failure window and its cooldown.
      CREATE TABLE upstream_health (
        family       TEXT NOT NULL,
        deployment   TEXT NOT NULL,
        window_start INTEGER NOT NULL,          -- epoch ms of the window's first failure
        failures     INTEGER NOT NULL,          -- failures in the window; 0: no window open
        retry_until  INTEGER NOT NULL,          -- the latest end a Retry-After of the window asked for (0: none)
        cooled_until INTEGER NOT NULL,          -- epoch ms the cooldown ends (0: never cooled)
        PRIMARY KEY (family, deployment)
      ) WITHOUT ROWID;
      -- Requests and tokens taken per deployment and minute (floor(epoch ms / 60 000)), against its rpm and tpm.
      CREATE TABLE upstream_minutes (
        family     TEXT NOT NULL,
        deployment TEXT NOT NULL,
        minute     INTEGER NOT NULL,
        requests   INTEGER NOT NULL,
        tokens     INTEGER NOT NULL,
        PRIMARY KEY (family, deployment, minute)
      ) WITHOUT ROWID;
      -- Each cooldown started or lengthened, for the operator's view (kept a day).
      CREATE TABLE upstream_cooldowns (
        id             INTEGER PRIMARY KEY,
        family         TEXT NOT NULL,
        deployment     TEXT NOT NULL,
        started_at     INTEGER NOT NULL,
        until          INTEGER NOT NULL,
        failures       INTEGER NOT NULL,        -- the count that started it
        retry_after_ms INTEGER                  -- the Retry-After it honoured, if any
      );
      CREATE INDEX upstream_cooldowns_by_start ON upstream_cooldowns(started_at);
    `,
  },
];

export const PG_HEALTH_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 1,
    name: 'upstream health',
    sql: `
      CREATE TABLE upstream_health (
        family       text NOT NULL,
        deployment   text NOT NULL,
        window_start bigint NOT NULL,
        failures     integer NOT NULL,
        retry_until  bigint NOT NULL,
        cooled_until bigint NOT NULL,
        PRIMARY KEY (family, deployment)
      );
      CREATE TABLE upstream_minutes (
        family     text NOT NULL,
        deployment text NOT NULL,
        minute     bigint NOT NULL,
        requests   bigint NOT NULL,
        tokens     bigint NOT NULL,
        PRIMARY KEY (family, deployment, minute)
      );
      CREATE TABLE upstream_cooldowns (
        id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        family         text NOT NULL,
        deployment     text NOT NULL,
        started_at     bigint NOT NULL,
        until          bigint NOT NULL,
        failures       integer NOT NULL,
        retry_after_ms bigint
      );
      CREATE INDEX upstream_cooldowns_by_start ON upstream_cooldowns(started_at);
    `,
  },
];
