import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { LockoutStore, RateStore } from '../limits.js';
import { OpenedExtensions, type SqliteHandle, type StoreExtension } from '../extension.js';
import type { AuditStore, ImportStore, KeyStore, LedgerStore, SettingsStore, Store } from '../store.js';
import { SqliteAuditStore, SqliteImportStore } from './imports-store.js';
import { BACKSTOP_PAGES, Checkpointer, DEFAULT_PAGES } from './checkpointer.js';
import { SqliteKeyStore, SqliteSettingsStore } from './key-store.js';
import { GroupCommit } from './group-commit.js';
import { SqliteLedgerStore } from './ledger-store.js';
import { SqliteLockoutStore } from './lockout-store.js';
import { SqliteRateStore } from './rate-store.js';
import { chunkedDelete, PRUNE_CHUNK_ROWS } from './chunked-delete.js';
import { CORE_TRACK, type MigrationReport } from '../migration.js';
import { migrate, migrateTrack } from './migrate.js';
import { guarded } from '../unavailable.js';

type Db = Database.Database;

const CHECKPOINT_INTERVAL_MS = 500;

/**
 * SQLite's page cache per connection, KiB. better-sqlite3 builds SQLite with a 16 MiB default,
 * which the growing ledger fills over minutes: it was the whole of the gateway's RSS growth in
 * the soak (`npm run bench -- --soak`). The hot path touches the spend and reservation rows and
 * the right edge of the ledger's B-trees; 4 MiB holds them with room for the usage queries.
 */
export const PAGE_CACHE_KIB = 4096;

/** How long a statement waits for another process's write lock before failing as unavailable. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** The settings of the gateway's connection, applied before migrations. */
export function configureConnection(db: Db, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS): void {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  enterWal(db, busyTimeoutMs);
  // NORMAL in WAL mode: a commit survives a process crash (it is in the WAL file, in the OS's
  // cache); the last commits before a power loss or OS crash may not (docs/money.md).
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
}

const WAL_RETRY_PAUSE_MS = 10;

/**
 * Switches a file to WAL, waiting up to busyTimeoutMs for another process's lock. The switch
 * reads the file's header, then writes it; a connection that already reads is given SQLITE_BUSY
 * at once, without its busy handler (SQLite's rule against two readers each waiting for the
 * other), so two processes opening a new file together would see one of them fail to start.
 */
function enterWal(db: Db, busyTimeoutMs: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const giveUpAt = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= giveUpAt) throw error;
      // Start-up only: nothing else runs on this event loop yet, so a blocking pause is harmless.
      Atomics.wait(pause, 0, 0, WAL_RETRY_PAUSE_MS);
    }
  }
}

/**
 * SQLite's answers that mean "the database cannot be used right now", not "this statement is
 * wrong": the lock still held by another process after busy_timeout, an I/O error, a file that
 * cannot be opened or written (full disk, read-only), and a connection already closed.
 */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)/;

export function sqliteUnavailable(error: unknown): boolean {
  if (error instanceof TypeError) return error.message.includes('database connection is not open');
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE_CODES.test(code);
}

/** A store of this backend whose unavailability is raised as a StoreUnavailableError. */
const sqliteGuarded = <T extends object>(store: T): T => guarded(store, 'sqlite', sqliteUnavailable);

export interface SqliteOptions {
  /** How long a write waits for another process's lock before failing as unavailable. */
  busyTimeoutMs?: number;
  /** Told which migrations this open (or an extension's) applied (none when another process had). */
  onMigrated?: MigrationReport;
  /** How often the background worker checkpoints the WAL (500 ms). */
  checkpointIntervalMs?: number;
}

export class SqliteStore implements Store {
  readonly keys: KeyStore;
  readonly settings: SettingsStore;
  readonly imports: ImportStore;
  readonly audit: AuditStore;
  readonly ledger: LedgerStore;
  readonly rates: RateStore;
  readonly lockouts: LockoutStore;
  private readonly writes: GroupCommit;
  private readonly extensions: OpenedExtensions;

  private constructor(
    private readonly db: Db,
    private readonly checkpointer: Checkpointer | null,
    onMigrated: MigrationReport | undefined,
  ) {
    this.extensions = new OpenedExtensions(onMigrated);
    this.keys = sqliteGuarded(new SqliteKeyStore(db));
    this.settings = sqliteGuarded(new SqliteSettingsStore(db));
    this.imports = sqliteGuarded(new SqliteImportStore(db));
    this.audit = sqliteGuarded(new SqliteAuditStore(db));
    // One group commit per connection: ledger writes, rate-cap takes and extensions' writes (signatures, stored responses) of one turn share a transaction.
    this.writes = new GroupCommit(db);
    const rates = new SqliteRateStore(db, this.writes);
    this.ledger = sqliteGuarded(new SqliteLedgerStore(db, this.writes, (take) => rates.decide(take)));
    this.rates = sqliteGuarded(rates);
    this.lockouts = sqliteGuarded(new SqliteLockoutStore(db));
  }

  /** Opens (creating if needed) the database file, sets WAL and runs pending migrations. */
  static open(path: string, options: SqliteOptions = {}): SqliteStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    configureConnection(db, options.busyTimeoutMs);
    const applied = migrate(db);
    if (applied.length > 0) options.onMigrated?.(applied, CORE_TRACK);
    if (path === ':memory:') return new SqliteStore(db, null, options.onMigrated);
    // Checkpoints (and their fsyncs) run in a worker, off the event loop; see checkpointer.ts.
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    const checkpointer = new Checkpointer(path, options.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS, () => {
      if (db.open) db.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
    });
    return new SqliteStore(db, checkpointer, options.onMigrated);
  }

  extend<T extends object>(extension: StoreExtension<T>): Promise<T> {
    const { db, writes } = this;
    const handle: SqliteHandle = {
      db,
      writes,
      chunkedDelete: (table, key, where) => chunkedDelete(db, table, key, where),
      pruneChunkRows: PRUNE_CHUNK_ROWS,
    };
    return this.extensions.get(
      extension,
      () => migrateTrack(db, extension.name, extension.sqlite.migrations),
      () => sqliteGuarded(extension.sqlite.open(handle)),
    );
  }

  async checkWritable(): Promise<void> {
    this.db.prepare("INSERT INTO settings (name, value) VALUES ('ready_probe', '1') ON CONFLICT(name) DO NOTHING").run();
  }

  async close(): Promise<void> {
    await this.checkpointer?.close();
    if (this.db.open) this.db.close();
  }
}
