/**
 * The status plugin's tables, on its own migration track, in each backend's types. Versions 3,
 * 8, 13 and 17 shipped as the core's migrations of the same numbers and names before the plugin
 * owned its state (`wasCore`): a database that applied them there keeps what they made. Never
 * edit a shipped migration: add the next number, on both backends.
 */
import type { ExtensionMigration } from '../../../src/plugin-api.js';

export const SQLITE_STATUS_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 3,
    name: 'operations',
    wasCore: true,
    sql: `
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
    version: 8,
    name: 'shared incident watch',
    wasCore: true,
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
    version: 13,
    name: 'status endpoints',
    wasCore: true,
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
    version: 17,
    name: 'automatic resolves',
    wasCore: true,
    sql: `
      -- The incident watch's last resolve of a model (lastAutomaticResolve): resolved automatic
      -- incidents, newest resolve first, read until the first naming the model — not the whole log.
      CREATE INDEX incidents_automatic_by_resolve ON incidents(resolved_at)
        WHERE automatic = 1 AND resolved_at IS NOT NULL;
    `,
  },
  {
    version: 27,
    name: 'daily history',
    sql: `
      -- Status site: each model's requests and failures per UTC day, for the 90-day history;
      -- written with the minute and hour rollups, kept 92 days.
      CREATE TABLE status_days (
        day      INTEGER NOT NULL,              -- epoch ms of the day's start (00:00 UTC)
        model    TEXT NOT NULL,                 -- canonical model ID
        requests INTEGER NOT NULL,
        failures INTEGER NOT NULL,
        PRIMARY KEY (day, model)
      ) WITHOUT ROWID;
      -- The history starts with the days the hour rollups still hold (about 31).
      INSERT INTO status_days (day, model, requests, failures)
        SELECT start / 86400000 * 86400000, model, SUM(requests), SUM(failures)
        FROM status_rollups WHERE period = 'hour' GROUP BY start / 86400000, model;
    `,
  },
];

export const PG_STATUS_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 3,
    name: 'operations',
    wasCore: true,
    sql: `
      CREATE TABLE status_rollups (
        period   text NOT NULL CHECK (period IN ('minute', 'hour')),
        start    bigint NOT NULL,
        model    text NOT NULL,
        requests bigint NOT NULL,
        failures bigint NOT NULL,
        PRIMARY KEY (period, start, model)
      );
      CREATE TABLE status_latency (
        period text NOT NULL CHECK (period IN ('minute', 'hour')),
        start  bigint NOT NULL,
        model  text NOT NULL,
        bucket integer NOT NULL,
        count  bigint NOT NULL,
        PRIMARY KEY (period, start, model, bucket)
      );
      -- rowid (PostgreSQL only): SQLite's implicit insertion order, which orders incidents
      -- that started at the same instant.
      CREATE TABLE incidents (
        id          text PRIMARY KEY,
        rowid       bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        title       text NOT NULL,
        status      text NOT NULL CHECK (status IN ('investigating', 'identified', 'monitoring', 'resolved')),
        impact      text NOT NULL CHECK (impact IN ('minor', 'major', 'critical')),
        models      text NOT NULL,
        automatic   boolean NOT NULL,
        started_at  bigint NOT NULL,
        resolved_at bigint,
        updated_at  bigint NOT NULL
      );
      CREATE INDEX incidents_by_start ON incidents(started_at);
      CREATE TABLE incident_updates (
        incident_id text NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
        seq         integer NOT NULL,
        at          bigint NOT NULL,
        status      text NOT NULL,
        message     text NOT NULL,
        PRIMARY KEY (incident_id, seq)
      );
    `,
  },
  {
    version: 8,
    name: 'shared incident watch',
    wasCore: true,
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
    version: 13,
    name: 'status endpoints',
    wasCore: true,
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
    version: 17,
    name: 'automatic resolves',
    wasCore: true,
    sql: `
      -- The incident watch's last resolve of a model: resolved automatic incidents, newest resolve first.
      CREATE INDEX incidents_automatic_by_resolve ON incidents(resolved_at)
        WHERE automatic AND resolved_at IS NOT NULL;
    `,
  },
  {
    version: 27,
    name: 'daily history',
    sql: `
      CREATE TABLE status_days (
        day      bigint NOT NULL,
        model    text NOT NULL,
        requests bigint NOT NULL,
        failures bigint NOT NULL,
        PRIMARY KEY (day, model)
      );
      INSERT INTO status_days (day, model, requests, failures)
        SELECT start / 86400000 * 86400000, model, SUM(requests), SUM(failures)
        FROM status_rollups WHERE period = 'hour' GROUP BY start / 86400000, model;
    `,
  },
];
