import type Database from 'better-sqlite3';
import type { FailureWindow, LockoutStore } from '../limits.js';
import { lockoutCurrentSql, lockoutFailSql, lockoutNoteSql } from '../rows.js';

// better-sqlite3 binds repeated parameters by name only: parameter n is @pn.
const numbered = (n: number): string => `@p${n}`;
const args = (...values: Array<string | number>): Record<string, string | number> => Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));

/** Failed admin-token attempts in SQLite (limits.ts; migration 9). Each method is one statement. */
export class SqliteLockoutStore implements LockoutStore {
  private readonly currentStmt;
  private readonly failStmt;
  private readonly noteStmt;
  private readonly pruneStmt;

  constructor(db: Database.Database) {
    this.currentStmt = db.prepare(lockoutCurrentSql(numbered));
    this.failStmt = db.prepare(lockoutFailSql(numbered));
    this.noteStmt = db.prepare(lockoutNoteSql(numbered));
    this.pruneStmt = db.prepare('DELETE FROM admin_failures WHERE window_start < ?');
  }

  async current(address: string, now: number, windowMs: number): Promise<FailureWindow | undefined> {
    return this.currentStmt.get(args(address, windowMs, now)) as FailureWindow | undefined;
  }

  async fail(address: string, now: number, windowMs: number): Promise<FailureWindow> {
    return this.failStmt.get(args(address, now, windowMs, 0)) as FailureWindow;
  }

  async noteLockout(address: string, now: number, windowMs: number): Promise<boolean> {
    return this.noteStmt.run(args(1, address, windowMs, now)).changes === 1;
  }

  async prune(before: number): Promise<number> {
    return this.pruneStmt.run(before).changes;
  }
}
