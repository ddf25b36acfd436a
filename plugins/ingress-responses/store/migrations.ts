/**
 * The ingress-responses plugin's tables, on its own migration track, in each backend's types.
 * Versions 11, 16, 18 and 21 shipped as the core's migrations of the same numbers and names
 * before the plugin owned its state (`wasCore`): a database that applied them there keeps what
 * they made. Later versions number on after the core's last at the split (22), so that a database
 * migrated by the core before it tells which of them it lacks by number. Never edit a shipped
 * migration: add the next number, on both backends.
 */
import type { ExtensionMigration } from '../../../src/plugin-api.js';

export const SQLITE_RESPONSE_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 11,
    name: 'responses',
    wasCore: true,
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
    version: 16,
    name: 'responses by key',
    wasCore: true,
    sql: `
      -- A key's responses newest first: the prune keeps each key's newest within its byte budget
      -- (the ingress-responses plugin's max_stored_bytes_per_key) and deletes the older ones.
      CREATE INDEX responses_by_key ON responses(key_id, created_at, id);
    `,
  },
  {
    version: 18,
    name: 'responses without an index by time',
    wasCore: true,
    sql: `
      -- A commit writes every page it touched to the WAL whole, so each index of this table cost
      -- a page per commit of a Responses call. The prune by age walks the rows in the order they
      -- were stored (./sqlite-responses.ts) and needs no index by time.
      DROP INDEX responses_by_time;
    `,
  },
  {
    version: 21,
    name: 'response sizes in the index by key',
    wasCore: true,
    sql: `
      -- The trim to a key's byte budget sums its responses' sizes newest first. With the size in
      -- the index (octet_length of text is its stored length), the sums read the index alone:
      -- 0.1 µs a response, against 1.6 µs when each size was read from its row.
      DROP INDEX responses_by_key;
      CREATE INDEX responses_by_key ON responses(key_id, created_at, id, octet_length(items));
    `,
  },
  {
    version: 23,
    name: 'response objects',
    sql: `
      -- The response object as GET /v1/responses/{id} returns it, without its output (the output
      -- items are in items, not kept twice). NULL for a response stored before this version.
      ALTER TABLE responses ADD COLUMN resource TEXT;
    `,
  },
  {
    version: 24,
    name: 'the deployment that answered',
    // The upstream deployment that answered the response (docs/deployments.md): a continuation
    // is sent there while it is healthy. NULL for responses stored before this version.
    sql: 'ALTER TABLE responses ADD COLUMN deployment TEXT;',
  },
];

export const PG_RESPONSE_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 11,
    name: 'responses',
    wasCore: true,
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
    version: 16,
    name: 'responses by key',
    wasCore: true,
    sql: `
      -- A key's responses newest first, for the prune to each key's byte budget.
      CREATE INDEX responses_by_key ON responses(key_id, created_at, id);
    `,
  },
  {
    version: 18,
    name: 'responses without an index by time',
    wasCore: true,
    // SQLite only: its WAL writes each touched page whole, so it drops an index its prune can do
    // without; PostgreSQL's WAL records an index entry, not its page, and keeps it.
    sql: '-- nothing to do on PostgreSQL',
  },
  {
    version: 21,
    name: 'response sizes in the index by key',
    wasCore: true,
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
    version: 23,
    name: 'response objects',
    sql: `
      -- The response object as GET /v1/responses/{id} returns it, without its output (kept in
      -- items). NULL for a response stored before this version. A column without a default: no rewrite.
      ALTER TABLE responses ADD COLUMN resource text;
    `,
  },
  {
    version: 24,
    name: 'the deployment that answered',
    // The upstream deployment that answered the response (docs/deployments.md): a continuation
    // is sent there while it is healthy. NULL for responses stored before this version.
    sql: 'ALTER TABLE responses ADD COLUMN deployment text;',
  },
];
