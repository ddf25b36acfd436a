/**
 * The store interface: the only way the gateway reaches persistent state. Nothing outside
 * `store/` speaks SQL, so a PostgreSQL implementation for several gateway instances can be
 * added without touching plugins. Methods return promises for that reason, even though the
 * SQLite implementation answers synchronously.
 */

import type { StatusStore } from './status.js';

export type KeyStatus = 'active' | 'revoked';

export interface KeyRecord {
  id: string;
  name: string;
  /** Canonical model IDs the key may use; null means every model of the catalogue. */
  models: string[] | null;
  /** Monthly spend ceiling in nano-dollars; null means none. */
  monthlyCeilingNanos: number | null;
  status: KeyStatus;
  /** Epoch ms after which the key answers 401; null for never. */
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
  rotatedAt: number | null;
  /** Truncated form of the current value, e.g. `sl-abcd…wxyz`. */
  display: string;
  /** Requests-per-minute cap: null = the gateway's default, 0 = no cap. */
  rpmLimit: number | null;
}

/** A presented value resolved to its key; `validUntil` is set on values replaced by a rotation. */
export interface KeyValueMatch {
  key: KeyRecord;
  /** The stored digest, for the caller's constant-time comparison. */
  valueHash: Buffer;
  validUntil: number | null;
}

export interface NewKey {
  name: string;
  models: string[] | null;
  monthlyCeilingNanos: number | null;
  expiresAt: number | null;
  rpmLimit: number | null;
  /** SHA-256 of the value and its truncated display; the raw value is never given to the store. */
  valueHash: Buffer;
  display: string;
  now: number;
}

export interface KeyPatch {
  name?: string;
  models?: string[] | null;
  monthlyCeilingNanos?: number | null;
  expiresAt?: number | null;
  rpmLimit?: number | null;
}

export interface KeyStore {
  create(input: NewKey): Promise<KeyRecord>;
  /** The key owning a value hash, whether or not it is still usable (the caller decides). */
  findByValueHash(hash: Buffer): Promise<KeyValueMatch | undefined>;
  get(id: string): Promise<KeyRecord | undefined>;
  list(): Promise<KeyRecord[]>;
  count(): Promise<number>;
  update(id: string, patch: KeyPatch, now: number): Promise<KeyRecord | undefined>;
  revoke(id: string, now: number): Promise<KeyRecord | undefined>;
}

export interface SettingsStore {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
}

export interface Store {
  readonly keys: KeyStore;
  readonly settings: SettingsStore;
  readonly status: StatusStore;
  /** Resolves when the store is reachable and writable (for readiness checks). */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}
