import type { StoreExtension } from '../../../src/plugin-api.js';
import { PG_SIGNATURE_MIGRATIONS, SQLITE_SIGNATURE_MIGRATIONS } from './migrations.js';
import { PgSignatureStore } from './postgres-signatures.js';
import type { SignatureStore } from './signatures.js';
import { SqliteSignatureStore } from './sqlite-signatures.js';

/** The vendor-beta plugin's own state (src/store/extension.ts): its thought signatures. */
export const SIGNATURE_STATE: StoreExtension<SignatureStore> = {
  name: 'vendor-beta',
  sqlite: { migrations: SQLITE_SIGNATURE_MIGRATIONS, open: (handle) => new SqliteSignatureStore(handle) },
  postgres: { migrations: PG_SIGNATURE_MIGRATIONS, open: (handle) => new PgSignatureStore(handle) },
};
