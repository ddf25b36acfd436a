/**
 * The store's extension seam: how a plugin keeps state of its own. A stateful plugin declares
 * its tables for both backends (numbered migrations on a track of its own name) and how to open
 * its sub-store on each; `Store.extend` applies the pending migrations of that track and hands
 * back the sub-store, built on the store's own connection (SQLite) or pool (PostgreSQL), its
 * unavailability raised as a StoreUnavailableError like the core's. The core store keeps only
 * what the core needs; see docs/plugins.md ("A plugin's own state").
 */
import type Database from 'better-sqlite3';
import type { Pool, PoolClient } from 'pg';
import type { Migration, MigrationReport } from './migration.js';

/** A migration of an extension's track: its version counts within the track only. */
export interface ExtensionMigration extends Migration {
  /**
   * The migration shipped before as the core's migration of the same version and name (the
   * built-in plugins' tables were core tables until the plugins owned their state): a database
   * that applied it there has it already and only records it on the track.
   */
  wasCore?: true;
}

/** The writes of one event-loop turn sent as one statement (PostgreSQL's group commit, src/store/postgres/tick-batch.ts). */
export interface BatchWriter<I, O> {
  /** All at once, in one statement; answers in input order. */
  many(inputs: readonly I[]): Promise<O[]>;
  one(input: I): Promise<O>;
}

/** What an extension's SQLite sub-store is built on. */
export interface SqliteHandle {
  readonly db: Database.Database;
  /**
   * The connection's group commit (src/store/sqlite/group-commit.ts): a write queued here joins
   * the transaction of its turn with the ledger row's, so both commit at once. `writeStatement`
   * for a write of exactly one statement.
   */
  readonly writes: {
    write<T>(run: () => T): Promise<T>;
    writeStatement<T>(run: () => T): Promise<T>;
  };
  /**
   * A pruning delete in statements of a few hundred rows, a turn of the event loop between them
   * (src/store/sqlite/chunked-delete.ts): `key` names what identifies a row, `where` selects.
   */
  chunkedDelete(table: string, key: string, where: string): (...params: unknown[]) => Promise<number>;
  /** The rows of one of those statements: a walk of its own in chunks keeps to the same bound. */
  readonly pruneChunkRows: number;
}

/** What an extension's PostgreSQL sub-store is built on. Only types of `pg` are needed to use it. */
export interface PostgresHandle {
  readonly pool: Pool;
  /** `work` in one transaction on one connection: committed if it resolves, rolled back if it throws. */
  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T>;
  /** A function that queues a write for its turn's batch, like the ledger rows of that turn. */
  tickBatch<I, O>(writer: BatchWriter<I, O>): (input: I) => Promise<O>;
}

/** A plugin's state: its migrations and how it opens on each backend. */
export interface StoreExtension<T extends object> {
  /** The migration track's name: the plugin's name. One extension per name and store. */
  readonly name: string;
  readonly sqlite: { readonly migrations: readonly ExtensionMigration[]; open(handle: SqliteHandle): T };
  readonly postgres: { readonly migrations: readonly ExtensionMigration[]; open(handle: PostgresHandle): T };
}

/** Opens extensions on a store; what `Store.extend` does. */
export interface ExtensibleStore {
  /**
   * Applies the pending migrations of `extension`'s track and answers its sub-store. Asked again
   * with the same extension, the same sub-store; another extension of the same name is refused.
   */
  extend<T extends object>(extension: StoreExtension<T>): Promise<T>;
}

/** The extensions opened on one store, by name: each migrated and opened once. */
export class OpenedExtensions {
  private readonly opened = new Map<string, { extension: StoreExtension<object>; store: Promise<object> }>();

  constructor(private readonly onMigrated: MigrationReport | undefined) {}

  /** `extension`'s sub-store: `migrate` applies its track (answering the versions it applied), then `open` builds it. */
  get<T extends object>(extension: StoreExtension<T>, migrate: () => Promise<number[]> | number[], open: () => T): Promise<T> {
    const known = this.opened.get(extension.name);
    if (known && known.extension !== extension) return Promise.reject(new Error(`the store already has an extension named ${extension.name}`));
    if (known) return known.store as Promise<T>;
    const store = (async () => {
      const applied = await migrate();
      if (applied.length > 0) this.onMigrated?.(applied, extension.name);
      return open();
    })();
    this.opened.set(extension.name, { extension, store });
    return store;
  }
}
