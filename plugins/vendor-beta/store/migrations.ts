/**
 * The vendor-beta plugin's tables, on its own migration track. Version 10 shipped as the core's
 * migration 10 before the plugin owned its state (`wasCore`): a database that applied it there
 * keeps its table. Later versions number on after the core's last at the split (22), as the
 * other plugins' tracks do. Never edit a shipped migration: add the next number, on both backends.
 */
import type { ExtensionMigration } from '../../../src/plugin-api.js';

export const SQLITE_SIGNATURE_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 10,
    name: 'thought signatures',
    wasCore: true,
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
    version: 23,
    name: 'the deployment of each thought signature',
    // The upstream deployment that issued it: replayed only there (docs/deployments.md). NULL for signatures kept before.
    sql: 'ALTER TABLE thought_signatures ADD COLUMN deployment TEXT;',
  },
];

export const PG_SIGNATURE_MIGRATIONS: readonly ExtensionMigration[] = [
  {
    version: 10,
    name: 'thought signatures',
    wasCore: true,
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
    version: 23,
    name: 'the deployment of each thought signature',
    // The upstream deployment that issued it: replayed only there (docs/deployments.md). NULL for signatures kept before.
    sql: 'ALTER TABLE thought_signatures ADD COLUMN deployment text;',
  },
];
