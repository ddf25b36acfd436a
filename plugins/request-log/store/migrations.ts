/**
 * The request log's table, on its own migration track. Never edit a shipped migration: add the
 * next number, on both backends.
 */
import type { ExtensionMigration } from '../../../src/plugin-api.js';

export const SQLITE_REQUEST_LOG_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 1,
    name: 'request log',
    sql: `
      -- One row per call of a known key (docs/request-log.md): no body, no header value. The id
      -- sorts by time (req_ + 12 hex digits of the admission's epoch ms + random), so the newest
      -- first order, the time filters and the cursor are ranges of one index; each filter column
      -- has an index ending in the id, so a filtered page walks it from the cursor down.
      CREATE TABLE request_log (
        id                 TEXT PRIMARY KEY,
        at                 INTEGER NOT NULL,
        key_id             TEXT NOT NULL,
        model              TEXT,
        endpoint           TEXT NOT NULL,
        stream             INTEGER NOT NULL,
        deployment         TEXT,
        status             INTEGER NOT NULL,
        outcome            TEXT NOT NULL,
        latency_ms         REAL NOT NULL,
        ttft_ms            REAL,
        input_tokens       INTEGER NOT NULL,
        output_tokens      INTEGER NOT NULL,
        cache_read_tokens  INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens   INTEGER NOT NULL,
        charged_nano       INTEGER NOT NULL,
        upstream_nano      INTEGER NOT NULL,
        attempts           INTEGER NOT NULL,
        cache_hit          INTEGER NOT NULL,
        trace_id           TEXT
      ) WITHOUT ROWID;
      CREATE INDEX request_log_by_key ON request_log(key_id, id);
      CREATE INDEX request_log_by_model ON request_log(model, id);
      CREATE INDEX request_log_by_endpoint ON request_log(endpoint, id);
      CREATE INDEX request_log_by_status ON request_log(status, id);
    `,
  },
];

export const PG_REQUEST_LOG_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 1,
    name: 'request log',
    sql: `
      -- The id in byte order (COLLATE "C"): time first, as on SQLite, whatever the database's locale.
      CREATE TABLE request_log (
        id                 text COLLATE "C" PRIMARY KEY,
        at                 bigint NOT NULL,
        key_id             text NOT NULL,
        model              text,
        endpoint           text NOT NULL,
        stream             boolean NOT NULL,
        deployment         text,
        status             integer NOT NULL,
        outcome            text NOT NULL,
        latency_ms         double precision NOT NULL,
        ttft_ms            double precision,
        input_tokens       bigint NOT NULL,
        output_tokens      bigint NOT NULL,
        cache_read_tokens  bigint NOT NULL,
        cache_write_tokens bigint NOT NULL,
        reasoning_tokens   bigint NOT NULL,
        charged_nano       bigint NOT NULL,
        upstream_nano      bigint NOT NULL,
        attempts           integer NOT NULL,
        cache_hit          boolean NOT NULL,
        trace_id           text
      );
      CREATE INDEX request_log_by_key ON request_log(key_id, id);
      CREATE INDEX request_log_by_model ON request_log(model, id);
      CREATE INDEX request_log_by_endpoint ON request_log(endpoint, id);
      CREATE INDEX request_log_by_status ON request_log(status, id);
    `,
  },
];
