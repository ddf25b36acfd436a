import type { Pool } from 'pg';
import type { StatusStore } from '../status.js';
import type { AuditStore, ImportStore, KeyStore, LedgerStore, ResponseStore, SettingsStore, Store } from '../store.js';
import { PgAuditStore, PgImportStore } from './imports-store.js';
import { PgKeyStore, PgSettingsStore } from './key-store.js';
import { PgLedgerStore } from './ledger-store.js';
import { migrate } from './migrate.js';
import { createPool, type PoolOptions } from './pool.js';
import { PgResponseStore } from './responses-store.js';
import { PgStatusStore } from './status-store.js';

export type PostgresOptions = PoolOptions;

const READY_TIMEOUT_MS = 5000;

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
  readonly status: StatusStore;
  readonly responses: ResponseStore;
  private closing: Promise<void> | null = null;

  private constructor(private readonly pool: Pool) {
    this.keys = new PgKeyStore(pool);
    this.settings = new PgSettingsStore(pool);
    this.imports = new PgImportStore(pool);
    this.audit = new PgAuditStore(pool);
    this.ledger = new PgLedgerStore(pool);
    this.status = new PgStatusStore(pool);
    this.responses = new PgResponseStore(pool);
  }

  /** Connects (lazily, per pool connection) and runs pending migrations under the migration lock. */
  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresStore> {
    const pool = createPool(url, options);
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresStore(pool);
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
    this.closing ??= this.pool.end();
    return this.closing;
  }
}
