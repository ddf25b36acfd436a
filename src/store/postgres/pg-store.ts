import type { Pool } from 'pg';
import type { LockoutStore, RateStore } from '../limits.js';
import { OpenedExtensions, type PostgresHandle, type StoreExtension } from '../extension.js';
import { CORE_TRACK, type MigrationReport } from '../migration.js';
import type { AuditStore, ImportStore, KeyStore, LedgerStore, SettingsStore, Store } from '../store.js';
import type { GrantStore } from '../grants.js';
import { PgGrantStore } from './grant-store.js';
import { PgAuditStore, PgImportStore } from './imports-store.js';
import { KeyChangeListener } from './key-listener.js';
import { PgKeyStore, PgSettingsStore } from './key-store.js';
import { PgLedgerStore } from './ledger-store.js';
import { PgLockoutStore } from './lockout-store.js';
import { PgRateStore } from './rate-store.js';
import { migrate, migrateTrack } from './migrate.js';
import { guarded } from '../unavailable.js';
import { createPool, DEFAULT_TIMEOUT_MS, inTransaction, pgUnavailable, type PoolOptions } from './pool.js';
import { TickBatch } from './tick-batch.js';

export type PostgresOptions = PoolOptions;

const READY_TIMEOUT_MS = 5000;

/** A store of this backend whose unavailability is raised as a StoreUnavailableError. */
const pgGuarded = <T extends object>(store: T): T => guarded(store, 'postgres', pgUnavailable);

/**
 * Migrations on a connection of their own, without the query bound: an instance waiting for
 * another's migrations (the advisory lock) or running a long one must not give up.
 */
async function migrating(url: string, ms: number, apply: (setup: Pool) => Promise<number[]>): Promise<number[]> {
  const setup = createPool(url, { max: 1, timeouts: { ms, query: false } });
  try {
    return await apply(setup);
  } finally {
    await setup.end();
  }
}

/**
 * The store on PostgreSQL, for several gateway instances sharing one database. The only module
 * tree that imports `pg`. Every method is either one statement (atomic on its own, committed
 * when it resolves) or one explicit transaction on one connection of the pool.
 */
export class PostgresStore implements Store {
  readonly keys: KeyStore;
  readonly settings: SettingsStore;
  readonly imports: ImportStore;
  readonly audit: AuditStore;
  readonly ledger: LedgerStore;
  readonly rates: RateStore;
  readonly lockouts: LockoutStore;
  /** Admissions granted ahead of the calls (src/store/granted-admissions.ts). */
  readonly grants: GrantStore;
  private closing: Promise<void> | null = null;
  private listener: KeyChangeListener | null = null;
  private readonly extensions: OpenedExtensions;

  private constructor(
    private readonly pool: Pool,
    private readonly url: string,
    private readonly timeoutMs: number,
    onMigrated: MigrationReport | undefined,
  ) {
    this.extensions = new OpenedExtensions(onMigrated);
    this.keys = pgGuarded(new PgKeyStore(pool));
    this.settings = pgGuarded(new PgSettingsStore(pool));
    this.imports = pgGuarded(new PgImportStore(pool));
    this.audit = pgGuarded(new PgAuditStore(pool));
    this.ledger = pgGuarded(new PgLedgerStore(pool));
    this.rates = pgGuarded(new PgRateStore(pool));
    this.lockouts = pgGuarded(new PgLockoutStore(pool));
    this.grants = pgGuarded(new PgGrantStore(pool));
  }

  /** Connects (lazily, per pool connection) and runs pending migrations under the migration lock. */
  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresStore> {
    const ms = options.timeouts?.ms ?? DEFAULT_TIMEOUT_MS;
    const applied = await migrating(url, ms, migrate);
    if (applied.length > 0) options.onMigrated?.(applied, CORE_TRACK);
    return new PostgresStore(createPool(url, { ...options, timeouts: { ms, query: true } }), url, ms, options.onMigrated);
  }

  extend<T extends object>(extension: StoreExtension<T>): Promise<T> {
    const { pool } = this;
    const handle: PostgresHandle = {
      pool,
      transaction: (work) => inTransaction(pool, work),
      tickBatch: (writer) => {
        const batch = new TickBatch(writer);
        return (input) => batch.run(input);
      },
    };
    return this.extensions.get(
      extension,
      () => migrating(this.url, this.timeoutMs, (setup) => migrateTrack(setup, extension.name, extension.postgres.migrations)),
      () => pgGuarded(extension.postgres.open(handle)),
    );
  }

  /**
   * Calls `onChange` whenever keys change in the database, through whichever instance (LISTEN
   * on a connection of its own, reconnected if it drops; `onError` hears why it dropped).
   * Resolves after the first attempt to listen.
   */
  watchKeyChanges(onChange: () => void, onError: (error: Error) => void): Promise<void> {
    this.listener ??= new KeyChangeListener(this.url, this.timeoutMs, onChange, onError);
    return this.listener.started;
  }

  async checkWritable(): Promise<void> {
    // A write, not a ping: a read-only replica or a read-only transaction default fails here.
    // Bounded: a readiness probe must answer even when the server has stopped answering.
    const probe = this.pool.query("INSERT INTO settings (name, value) VALUES ('ready_probe', '1') ON CONFLICT (name) DO NOTHING");
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`PostgreSQL did not answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
    probe.catch(() => undefined); // its failure after the timeout is no one's business
    try {
      await Promise.race([probe, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    // pool.end() may be called once; later calls wait for the first.
    this.closing ??= Promise.all([this.listener?.close(), this.pool.end()]).then(() => undefined);
    return this.closing;
  }
}
