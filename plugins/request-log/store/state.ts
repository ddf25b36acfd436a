import type { StoreExtension } from '../../../src/plugin-api.js';
import type { RequestLogStore } from './log-store.js';
import { PG_REQUEST_LOG_MIGRATIONS, SQLITE_REQUEST_LOG_MIGRATIONS } from './migrations.js';
import { PgRequestLog } from './postgres-log.js';
import { SqliteRequestLog } from './sqlite-log.js';

/** The request-log plugin's own state (src/store/extension.ts): one record per call. */
export const REQUEST_LOG_STATE: StoreExtension<RequestLogStore> = {
  name: 'request-log',
  sqlite: { migrations: SQLITE_REQUEST_LOG_MIGRATIONS, open: (handle) => new SqliteRequestLog(handle) },
  postgres: { migrations: PG_REQUEST_LOG_MIGRATIONS, open: (handle) => new PgRequestLog(handle) },
};
