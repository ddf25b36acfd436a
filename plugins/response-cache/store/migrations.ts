/**
 * The response-cache plugin's table, on its own migration track. Never edit a shipped migration:
 * add the next number, on both backends.
 */
import type { ExtensionMigration } from '../../../src/plugin-api.js';

export const SQLITE_CACHE_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 1,
    name: 'response cache',
    sql: `
      -- One answer of one key, by the SHA-256 of its request less identifiers (match.ts): the
      -- caller-format body or stream frames as first sent, kept until expires_at.
      CREATE TABLE response_cache (
        key_id     TEXT NOT NULL,
        hash       TEXT NOT NULL,
        answer     TEXT NOT NULL,
        bytes      INTEGER NOT NULL,
        stored_at  INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (key_id, hash)
      ) WITHOUT ROWID;
      CREATE INDEX response_cache_by_expiry ON response_cache(expires_at);
      CREATE INDEX response_cache_by_age ON response_cache(key_id, stored_at);
    `,
  },
];

export const PG_CACHE_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 1,
    name: 'response cache',
    sql: `
      CREATE TABLE response_cache (
        key_id     text NOT NULL,
        hash       text NOT NULL,
        answer     text NOT NULL,
        bytes      bigint NOT NULL,
        stored_at  bigint NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (key_id, hash)
      );
      CREATE INDEX response_cache_by_expiry ON response_cache(expires_at);
      CREATE INDEX response_cache_by_age ON response_cache(key_id, stored_at);
    `,
  },
];
