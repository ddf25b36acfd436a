import type { StoreExtension } from '../../../src/plugin-api.js';
import type { ResponseCacheStore } from './cache-store.js';
import { PG_CACHE_MIGRATIONS, SQLITE_CACHE_MIGRATIONS } from './migrations.js';
import { PgResponseCache } from './postgres-cache.js';
import { SqliteResponseCache } from './sqlite-cache.js';

/** The response-cache plugin's own state (src/store/extension.ts): its entries. */
export const RESPONSE_CACHE_STATE: StoreExtension<ResponseCacheStore> = {
  name: 'response-cache',
  sqlite: { migrations: SQLITE_CACHE_MIGRATIONS, open: (handle) => new SqliteResponseCache(handle) },
  postgres: { migrations: PG_CACHE_MIGRATIONS, open: (handle) => new PgResponseCache(handle) },
};
