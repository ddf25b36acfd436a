/**
 * The shared health and rate headroom of upstream deployments (docs/deployments.md): what every
 * instance on one store agrees on. A deployment that fails `fails` times within `window_s` is
 * cooled down for `cooldown_s` (at least its Retry-After); a deployment's vendor limits (`rpm`,
 * `tpm`) are kept across instances. The selection of a deployment (src/upstreams/selection.ts)
 * reads cooldowns from a per-process view refreshed from the store, and takes rate headroom from
 * the store itself, only for deployments that declare a limit.
 */

/** One deployment of one family. */
export interface DeploymentRef {
  readonly family: string;
  readonly deployment: string;
}

/** `upstream_health` in the config, in milliseconds. */
export interface HealthPolicy {
  readonly fails: number;
  readonly windowMs: number;
  readonly cooldownMs: number;
}

/** A deployment's vendor limits, per minute. */
export interface DeploymentLimits {
  readonly rpm?: number;
  readonly tpm?: number;
}

/** What the admin API and the dashboard show of one deployment. */
export interface DeploymentHealthRow extends DeploymentRef {
  /** Failures counted in the current window. */
  readonly recentFailures: number;
  /** Epoch ms the cooldown ends, or null when the deployment is not cooled down. */
  readonly cooledUntil: number | null;
  /** Requests and tokens taken in the current minute. */
  readonly minuteRequests: number;
  readonly minuteTokens: number;
}

export interface UpstreamHealth {
  /**
   * The deployments of `family` cooled down at `now`, each with the epoch ms its cooldown ends:
   * synchronous, from this process's view of the store, at most a refresh interval old (a
   * cooldown one instance starts reaches every instance within a second).
   */
  cooledDown(family: string, now: number): ReadonlyMap<string, number>;
  /**
   * A failed attempt (429, 5xx, a timeout, a connection error). Counts towards the deployment's
   * window; the `fails`-th failure within it cools the deployment down for the longer of the
   * policy's cooldown and `retryAfterMs`. Resolves with the cooldown's end, or null. This
   * process's view sees the cooldown at once. Rejects with the store's StoreUnavailableError
   * when the store cannot be reached (the failure is then not counted).
   */
  recordFailure(ref: DeploymentRef, now: number, retryAfterMs: number | null): Promise<number | null>;
  /**
   * Takes one request and `tokens` from the deployment's current minute, atomically across
   * instances: true if both stay within `limits`, false (and nothing taken) if not. Called only
   * for deployments that declare a limit. `tokens` is rounded up to a whole number (at least 0).
   * Rejects with the store's StoreUnavailableError when the store cannot be reached.
   */
  take(ref: DeploymentRef, limits: DeploymentLimits, tokens: number, now: number): Promise<boolean>;
  /** Every deployment the store knows of, for the admin API. */
  snapshot(now: number): Promise<DeploymentHealthRow[]>;
  /**
   * Whether any family now has a choice of deployments (told at start and after each reload):
   * only then is this process's view of the cooldowns kept fresh, since only a choice reads it.
   */
  choosing(any: boolean): void;
  /** Stops the refresh of this process's view. */
  close(): void;
}
