import type { StoreExtension } from '../../../src/plugin-api.js';
import { PG_RESPONSE_MIGRATIONS, SQLITE_RESPONSE_MIGRATIONS } from './migrations.js';
import { PgResponseStore } from './postgres-responses.js';
import type { ResponseStore } from './responses.js';
import { SqliteResponseStore } from './sqlite-responses.js';

/** The ingress-responses plugin's own state (src/store/extension.ts): its stored responses. */
export const RESPONSE_STATE: StoreExtension<ResponseStore> = {
  name: 'ingress-responses',
  sqlite: { migrations: SQLITE_RESPONSE_MIGRATIONS, open: (handle) => new SqliteResponseStore(handle) },
  postgres: { migrations: PG_RESPONSE_MIGRATIONS, open: (handle) => new PgResponseStore(handle) },
};
