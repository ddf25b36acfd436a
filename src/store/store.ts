/**
 * The store interface: the only way the gateway reaches persistent state. Nothing outside
 * `store/` speaks SQL but a plugin's own `store/` folder, on both backends, through the
 * extension seam (extension.ts). Methods return promises so that PostgreSQL can serve several
 * gateway instances, even though the SQLite implementation answers synchronously. A database that cannot be reached, or does not
 * answer within `database.timeout_ms`, fails a method with a StoreUnavailableError
 * (src/store/unavailable.ts), on both backends.
 */

import type { LedgerStore } from './ledger.js';
import type { LockoutStore, RateStore } from './limits.js';
import type { ExtensibleStore } from './extension.js';

export type {
  CycleSpend,
  DailyUsage,
  KeyActivity,
  LedgerRow,
  LedgerStore,
  Reservation,
  ReserveInput,
  ReserveResult,
  SpendLimit,
  TakenReservation,
} from './ledger.js';

export type KeyStatus = 'active' | 'revoked';

export interface KeyRecord {
  id: string;
  name: string;
  /** Canonical model IDs the key may use; null means every model of the catalogue. */
  models: string[] | null;
  /** Monthly spend ceiling in nano-dollars; null means none. */
  monthlyCeilingNanos: number | null;
  /** Monthly limit on the key's upstream cost (its calls at the vendors' list prices) in nano-dollars; null means none. */
  monthlyUpstreamLimitNanos: number | null;
  status: KeyStatus;
  /** Epoch ms after which the key answers 401; null for never. */
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
  rotatedAt: number | null;
  /** When the last value replaced by a rotation stops (or stopped) working; null if never rotated. */
  previousValidUntil: number | null;
  /** Truncated form of the current value, e.g. `sl-abcd…wxyz`. */
  display: string;
  /** Requests-per-minute cap: null = the gateway's default, 0 = no cap. */
  rpmLimit: number | null;
  /** Seconds the response cache keeps this key's answers (docs/caching.md#response-cache): null or 0 = the cache is off unless a request asks. */
  cacheTtlS: number | null;
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
  /** Absent or null: none. */
  monthlyUpstreamLimitNanos?: number | null;
  expiresAt: number | null;
  /** Requests-per-minute cap; absent or null: the gateway's default. */
  rpmLimit?: number | null;
  /** The response cache's time to live of the key's answers; absent or null: none. */
  cacheTtlS?: number | null;
  /** SHA-256 of the value and its truncated display; the raw value is never given to the store. */
  valueHash: Buffer;
  display: string;
  now: number;
}

export interface KeyPatch {
  name?: string;
  models?: string[] | null;
  monthlyCeilingNanos?: number | null;
  monthlyUpstreamLimitNanos?: number | null;
  expiresAt?: number | null;
  rpmLimit?: number | null;
  cacheTtlS?: number | null;
}

export interface KeyRotation {
  /** SHA-256 and truncated display of the new value. */
  valueHash: Buffer;
  display: string;
  now: number;
  /** When the value being replaced stops working (now + the grace period). */
  previousValidUntil: number;
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
  /**
   * Gives a key a new current value. The current value becomes a previous one, valid until
   * `previousValidUntil`; older previous values keep their own end; spent ones are dropped.
   */
  rotate(id: string, rotation: KeyRotation): Promise<KeyRecord | undefined>;
}

export interface SettingsStore {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  /**
   * Sets `name` only if it has no value yet; true for the one caller (of any instance) that set
   * it. Instances racing on an empty database use it to elect who mints the first secrets.
   */
  claim(name: string, value: string): Promise<boolean>;
}

/** Prefix family of an imported key. */
export type ImportKind = 'qua-' | 'sk-' | 'or-';

export interface ImportedKey {
  id: string;
  kind: ImportKind;
  /** Hex SHA-256 of the pasted value. */
  fingerprint: string;
  last4: string;
  label: string;
  createdAt: number;
  updatedAt: number;
}

/** One day × model line of an imported usage history. */
export interface ImportedUsageRow {
  day: string;
  modelRaw: string;
  /** Canonical catalogue ID, or null for a model the catalogue does not know. */
  modelId: string | null;
  inputTokens: number;
  outputTokens: number;
  costNanos: number;
}

export interface ImportStore {
  /** The import with this fingerprint, created if new; its history replaced by `rows` when given (one transaction). */
  upsert(
    input: { kind: ImportKind; fingerprint: string; last4: string; label: string; now: number },
    rows: ImportedUsageRow[] | null,
  ): Promise<{ key: ImportedKey; created: boolean }>;
  list(): Promise<ImportedKey[]>;
  get(id: string): Promise<ImportedKey | undefined>;
  history(id: string): Promise<ImportedUsageRow[]>;
  remove(id: string): Promise<boolean>;
}

export interface AuditEntry {
  at: number;
  /** Fingerprint of the admin token used (never the token), or `unauthenticated`. */
  actor: string;
  /** What was done, e.g. `POST /keys/key_x/revoke`. */
  action: string;
  target: string | null;
  status: number;
}

export interface AuditStore {
  record(entry: AuditEntry): Promise<void>;
  /** Newest first. */
  list(limit: number): Promise<Array<AuditEntry & { id: number }>>;
  /**
   * Deletes the entries recorded before `olderThan` (epoch ms) and all but the `keepAtMost`
   * newest; resolves with how many went.
   */
  prune(olderThan: number, keepAtMost: number): Promise<number>;
}

/**
 * The core's state, and the seam through which a plugin opens state of its own (`extend`,
 * src/store/extension.ts).
 */
export interface Store extends ExtensibleStore {
  readonly keys: KeyStore;
  readonly settings: SettingsStore;
  readonly imports: ImportStore;
  readonly audit: AuditStore;
  readonly ledger: LedgerStore;
  readonly rates: RateStore;
  readonly lockouts: LockoutStore;
  /** Resolves when the store is reachable and writable (for readiness checks). */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}
