import type { Pool } from 'pg';
import type { FailureWindow, LockoutStore } from '../limits.js';
import { lockoutCurrentSql, lockoutFailSql, lockoutNoteSql } from '../rows.js';

const numbered = (n: number): string => `$${n}`;
// Typed: the window length is added to a bigint time.
const CURRENT = { name: 'lockout_current', text: lockoutCurrentSql((n) => (n === 2 ? '$2::bigint' : numbered(n))) };
const FAIL = { name: 'lockout_fail', text: lockoutFailSql((n) => (n === 3 ? '$3::bigint' : numbered(n))) };
const NOTE = { name: 'lockout_note', text: lockoutNoteSql((n) => (n === 3 ? '$3::bigint' : numbered(n))) };

/** Failed admin-token attempts in PostgreSQL (limits.ts; migration 9). Each method is one statement. */
export class PgLockoutStore implements LockoutStore {
  constructor(private readonly pool: Pool) {}

  async current(address: string, now: number, windowMs: number): Promise<FailureWindow | undefined> {
    return (await this.pool.query<FailureWindow>({ ...CURRENT, values: [address, windowMs, now] })).rows[0];
  }

  async fail(address: string, now: number, windowMs: number): Promise<FailureWindow> {
    const row = (await this.pool.query<FailureWindow>({ ...FAIL, values: [address, now, windowMs, false] })).rows[0];
    if (!row) throw new Error('the failed attempt was not counted');
    return row;
  }

  async noteLockout(address: string, now: number, windowMs: number): Promise<boolean> {
    return (await this.pool.query({ ...NOTE, values: [true, address, windowMs, now] })).rowCount === 1;
  }

  async prune(before: number): Promise<number> {
    return (await this.pool.query('DELETE FROM admin_failures WHERE window_start < $1', [before])).rowCount ?? 0;
  }
}
