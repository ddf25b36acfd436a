/**
 * The store interface: the only way the gateway reaches persistent state. Nothing outside
 * `store/` speaks SQL, so a PostgreSQL implementation for several gateway instances can be
 * added without touching plugins. Methods return promises for that reason, even though the
 * SQLite implementation answers synchronously. A database that cannot be reached, or does not
 * answer within `database.timeout_ms`, fails a method with a StoreUnavailableError
 * (src/store/unavailable.ts), on both backends.
 */

import type { LockoutStore, RateStore } from './limits.js';
import type { SignatureStore } from './signatures.js';
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
  /** When the last value replaced by a rotation stops (or stopped) working; null if never rotated. */
  previousValidUntil: number | null;
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
  /** Requests-per-minute cap; absent or null: the gateway's default. */
  rpmLimit?: number | null;
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
  upsert(input: { kind: ImportKind; fingerprint: string; last4: string; label: string; now: number }, rows: ImportedUsageRow[] | null): Promise<{ key: ImportedKey; created: boolean }>;
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

/** A spend reservation an admitted call holds until its ledger row settles it. */
export interface Reservation {
  id: number;
  keyId: string;
  /** Billing cycle of admission, `YYYY-MM` (UTC). */
  cycle: string;
  /** Nano-dollars held. */
  nanos: number;
}

export interface ReserveInput {
  keyId: string;
  cycle: string;
  nanos: number;
  ceilingNanos: number;
  /** The gateway instance holding it: its reservations are released when that instance starts again. */
  instance: string;
  now: number;
  /**
   * The end of the reservation's lease (epoch ms): unless its instance renews it before then, it
   * stops counting against the ceiling at that instant and is swept (an instance that died).
   */
  expiresAt: number;
}

/** A cycle's settled spend and what in-flight calls hold, in nano-dollars. */
export interface CycleSpend {
  spent: number;
  reserved: number;
}

export type ReserveResult = { admitted: true; reservation: Reservation } | ({ admitted: false } & CycleSpend);

/** One row per call that reached an upstream. Money in nano-dollars, times in epoch ms. */
export interface LedgerRow {
  admittedAt: number;
  cycle: string;
  keyId: string;
  model: string;
  family: string;
  endpoint: string;
  stream: boolean;
  status: number;
  /** ok, upstream_error, client_disconnected, timeout, error. */
  outcome: string;
  attempts: number;
  promptTokens: number;
  completionTokens: number;
  /** The completion count came from relayed deltas, the vendor never reported one. */
  usageEstimated: boolean;
  chargedNanos: number;
  listNanos: number;
  /** From the upstream request to the end of the call; null if it never started. */
  upstreamMs: number | null;
  /** From the upstream request to the first byte relayed; null when nothing was streamed. */
  ttftMs: number | null;
}

/** Sums of a key's rows for one UTC day and one model. */
export interface DailyUsage {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  model: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  chargedNanos: number;
  listNanos: number;
}

/**
 * The money store. Every method that admits or settles is one transaction that is atomic
 * across every process sharing the store, so that no interleaving of gateway instances can
 * admit more than a key's ceiling.
 */
export interface LedgerStore {
  /**
   * Admits iff spent < ceiling and spent + reserved + nanos ≤ ceiling; holds `nanos` if so.
   * The key's reservations whose lease ended at or before `now` are dropped first (they do not
   * count); a refusal reports the figures it was decided on.
   */
  reserve(input: ReserveInput): Promise<ReserveResult>;
  /** Writes a call's row, adds its charged cost to the cycle's spend and drops its reservation, at once. */
  record(row: LedgerRow, reservationId: number | null): Promise<void>;
  /** Drops a reservation that no row settled (the call never reached an upstream). */
  release(reservationId: number): Promise<void>;
  /** Drops every reservation an instance holds (left by a crash); returns how many. */
  releaseInstance(instance: string): Promise<number>;
  /**
   * Moves the end of these leases (the reservations of an instance's calls in flight) to
   * `expiresAt`; a lease that had already ended at `now` stays ended. Returns how many moved.
   */
  renewLeases(reservationIds: readonly number[], expiresAt: number, now: number): Promise<number>;
  /** Drops every reservation whose lease ended at or before `now`; returns how many (another instance may be sweeping: then 0). */
  sweepExpiredLeases(now: number): Promise<number>;
  /** A key's spend and reservations in a cycle (expired leases count until swept); `null` sums every key. */
  cycleSpend(keyId: string | null, cycle: string): Promise<CycleSpend>;
  /** A key's rows (every key's for `null`) admitted at or after `since`, summed per UTC day and model, oldest first. */
  dailyUsage(keyId: string | null, since: number): Promise<DailyUsage[]>;
  /** Every key's spend and reservations in a cycle and its last admitted call. */
  keyActivity(cycle: string): Promise<KeyActivity[]>;
}

export interface KeyActivity extends CycleSpend {
  keyId: string;
  /** Epoch ms of the key's last call that reached an upstream; null if none. */
  lastUsedAt: number | null;
}

/**
 * A stored Responses API response: what continuing from it (`previous_response_id`) needs.
 * Stored per key; another key never sees it.
 */
export interface StoredResponse {
  /** `resp_…`. */
  id: string;
  keyId: string;
  /** The response it continued (its `previous_response_id`), or null. */
  previousId: string | null;
  /** Epoch ms. */
  createdAt: number;
  /** JSON text of `{"input": [items], "output": [items]}`: the caller's input items and the response's output items. */
  items: string;
}

export interface ResponseStore {
  save(response: StoredResponse): Promise<void>;
  /**
   * The key's response `id` and every response it continues, oldest first, all created at or
   * after `since`. Empty when there is none for this key (unknown, another key's, expired) or
   * when a response of its chain is gone: a conversation is continued whole or not at all.
   */
  thread(keyId: string, id: string, since: number): Promise<StoredResponse[]>;
  /** Deletes the responses created before `before` (epoch ms); resolves with how many went. */
  prune(before: number): Promise<number>;
}

export interface Store {
  readonly keys: KeyStore;
  readonly settings: SettingsStore;
  readonly imports: ImportStore;
  readonly audit: AuditStore;
  readonly ledger: LedgerStore;
  readonly rates: RateStore;
  readonly lockouts: LockoutStore;
  readonly signatures: SignatureStore;
  readonly status: StatusStore;
  readonly responses: ResponseStore;
  /** Resolves when the store is reachable and writable (for readiness checks). */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}
