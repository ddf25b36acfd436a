import type { StoreExtension } from '../../../src/plugin-api.js';
import { PG_STATUS_MIGRATIONS, SQLITE_STATUS_MIGRATIONS } from './migrations.js';
import { PgStatusStore } from './postgres-status.js';
import { SqliteStatusStore } from './sqlite-status.js';
import type { StatusStore } from './status.js';

/** The status plugin's own state (src/store/extension.ts): traffic rollups, incidents and the incident watch's counts. */
export const STATUS_STATE: StoreExtension<StatusStore> = {
  name: 'status',
  sqlite: { migrations: SQLITE_STATUS_MIGRATIONS, open: (handle) => new SqliteStatusStore(handle) },
  postgres: { migrations: PG_STATUS_MIGRATIONS, open: (handle) => new PgStatusStore(handle) },
};
