import type { GatewayConfig } from '../config/schema.js';
import { GrantedAdmissions } from './granted-admissions.js';
import type { MigrationReport } from './migration.js';
import { RecentKeys } from './recent-keys.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export type DatabaseConfig = GatewayConfig['database'];

export interface OpenStoreOptions {
  /** PostgreSQL: connections per process (default 10). */
  poolSize?: number;
  /** PostgreSQL: an idle pooled connection, or the key-change listener's, failed; it is replaced. For the log. */
  onBackgroundError?: (error: Error) => void;
  /**
   * Told which migrations this process applied, and on which track: the core's at the open, a
   * plugin's when it opens its state (none when another instance had: on one database they run once).
   */
  onMigrated?: MigrationReport;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//;

export const isPostgresUrl = (url: string | undefined): url is string => url !== undefined && POSTGRES_URL.test(url);

/**
 * The one place that picks a backend: `database.url` (env GATEWAY_DATABASE_URL) with a
 * postgres:// or postgresql:// URL opens PostgreSQL; without one, the SQLite file at
 * `database.path` (env GATEWAY_DB). Either way, migrations are applied before it resolves, and
 * key lookups by value go through the one-second memory of recent-keys.ts — on PostgreSQL
 * cleared at once by every key change of any instance. On PostgreSQL, busy kinds of calls are
 * admitted ahead, a few at a time (granted-admissions.ts), to save each call a round trip.
 */
export async function openStore(database: DatabaseConfig, options: OpenStoreOptions = {}): Promise<Store> {
  const { url } = database;
  if (url !== undefined && !isPostgresUrl(url)) throw new Error('database.url must start with postgres:// or postgresql://');
  const onMigrated = options.onMigrated ? { onMigrated: options.onMigrated } : {};
  if (!isPostgresUrl(url)) {
    return withRecentKeys(
      SqliteStore.open(database.path, { ...onMigrated, ...(database.timeout_ms === undefined ? {} : { busyTimeoutMs: database.timeout_ms }) }),
    );
  }
  // Loaded only when asked for: a SQLite deployment never loads pg.
  const store = await (
    await import('./postgres/pg-store.js')
  ).PostgresStore.open(url, {
    ...(database.timeout_ms === undefined ? {} : { timeouts: { ms: database.timeout_ms, query: true } }),
    ...(options.poolSize === undefined ? {} : { max: options.poolSize }),
    ...(options.onBackgroundError ? { onBackgroundError: options.onBackgroundError } : {}),
    ...onMigrated,
  });
  const grants = new GrantedAdmissions(store.grants, (error) => options.onBackgroundError?.(error));
  const wrapped = withRecentKeys({
    ...storeParts(store),
    ledger: grants.ledger(store.ledger),
    rates: grants.rates(store.rates),
    close: async () => {
      await grants.close();
      await store.close();
    },
  });
  // A change made through any instance clears this one's memory at once (LISTEN/NOTIFY).
  await store.watchKeyChanges(
    () => wrapped.keys.forget(),
    (error) => options.onBackgroundError?.(error),
  );
  return wrapped;
}

function withRecentKeys(store: Store): Store & { keys: RecentKeys } {
  return { ...storeParts(store), keys: new RecentKeys(store.keys) };
}

/** A store's parts as a plain object, for a wrapper to replace some. */
function storeParts(store: Store): Store {
  return {
    keys: store.keys,
    settings: store.settings,
    imports: store.imports,
    audit: store.audit,
    ledger: store.ledger,
    rates: store.rates,
    lockouts: store.lockouts,
    extend: (extension) => store.extend(extension),
    checkWritable: () => store.checkWritable(),
    close: () => store.close(),
  };
}

/** The database for the start-up log: the SQLite path, or the URL without its password. */
export function describeDatabase(database: DatabaseConfig): string {
  if (!isPostgresUrl(database.url)) return database.path;
  try {
    const url = new URL(database.url);
    if (url.password) url.password = '***';
    for (const name of [...url.searchParams.keys()]) if (/pass/i.test(name)) url.searchParams.set(name, '***');
    return url.toString();
  } catch {
    return 'postgresql://(unparsable url)';
  }
}
