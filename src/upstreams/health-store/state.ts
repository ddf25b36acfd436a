import type { StoreExtension } from '../../store/extension.js';
import type { HealthStore } from './health-store.js';
import { PG_HEALTH_MIGRATIONS, SQLITE_HEALTH_MIGRATIONS } from './migrations.js';
import { PgHealthStore } from './postgres-health.js';
import { SqliteHealthStore } from './sqlite-health.js';

/** The shared health of upstream deployments, on the store's extension seam (src/store/extension.ts), track `upstream-health`. */
export const UPSTREAM_HEALTH_STATE: StoreExtension<HealthStore> = {
  name: 'upstream-health',
  sqlite: { migrations: SQLITE_HEALTH_MIGRATIONS, open: (handle) => new SqliteHealthStore(handle) },
  postgres: { migrations: PG_HEALTH_MIGRATIONS, open: (handle) => new PgHealthStore(handle) },
};
