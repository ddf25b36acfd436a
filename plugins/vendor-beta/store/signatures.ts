/**
 * Beta's thought signatures (../thought-signatures.ts), kept in the plugin's own state so
 * that a follow-up call replays the right one whichever instance it reaches, after a restart
 * too. Scoped by key: a caller never gets a signature handed to another key.
 */

export interface ThoughtSignature {
  keyId: string;
  /** The tool-call id the caller was given. */
  callId: string;
  signature: string;
  /** The upstream deployment of the attempt that gave it (replayed only there); null when not known (kept before deployments were recorded). */
  deployment: string | null;
}

/** A signature kept for a call id: what `get` answers. */
export type KeptSignature = Pick<ThoughtSignature, 'signature' | 'deployment'>;

export interface SignatureStore {
  /** Keeps the signatures until `expiresAt` (epoch ms); a later one for the same key and call id replaces it. */
  put(signatures: readonly ThoughtSignature[], expiresAt: number): Promise<void>;
  /** The signatures of `callIds` under `keyId` that have not expired at `now`, by call id. */
  get(keyId: string, callIds: readonly string[], now: number): Promise<Map<string, KeptSignature>>;
  /** Drops the signatures expired at `now`; returns how many. */
  prune(now: number): Promise<number>;
}

/** One signature per (key, call id), the last given winning: a batch may repeat a pair, an upsert may not. */
export function lastPerCall(signatures: readonly ThoughtSignature[]): ThoughtSignature[] {
  return [...new Map(signatures.map((one) => [`${one.keyId}\n${one.callId}`, one])).values()];
}
