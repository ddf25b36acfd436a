import type { DeploymentHealthRow, DeploymentLimits, DeploymentRef, HealthPolicy, UpstreamHealth } from '../../src/upstreams/health.js';

/**
 * An in-process UpstreamHealth for tests of the deployments' selection, until the store-backed
 * one (shared by every instance) is merged: the same rules — `fails` failures within the window
 * cool a deployment down for the longer of the cooldown and the upstream's Retry-After; `rpm`
 * and `tpm` per minute of the clock — kept in this process's memory only.
 */

interface State {
  ref: DeploymentRef;
  failures: number[];
  cooledUntil: number | null;
  minute: number;
  requests: number;
  tokens: number;
}

const MINUTE_MS = 60_000;
const NONE: ReadonlyMap<string, number> = new Map();

export class LocalUpstreamHealth implements UpstreamHealth {
  private readonly states = new Map<string, State>();
  /** Failures recorded, in order (what a test asserts on). */
  readonly failuresSeen: Array<DeploymentRef & { retryAfterMs: number | null }> = [];

  constructor(private readonly policy: HealthPolicy) {}

  private state(ref: DeploymentRef): State {
    const key = `${ref.family}/${ref.deployment}`;
    let state = this.states.get(key);
    if (!state) {
      state = { ref: { family: ref.family, deployment: ref.deployment }, failures: [], cooledUntil: null, minute: 0, requests: 0, tokens: 0 };
      this.states.set(key, state);
    }
    return state;
  }

  /** What the gateway told of its deployments, in order (the whole state is in memory: nothing to keep fresh). */
  readonly choices: boolean[] = [];

  choosing(any: boolean): void {
    this.choices.push(any);
  }

  cooledDown(family: string, now: number): ReadonlyMap<string, number> {
    let cooled: Map<string, number> | null = null;
    for (const state of this.states.values()) {
      if (state.ref.family !== family || state.cooledUntil === null || state.cooledUntil <= now) continue;
      (cooled ??= new Map()).set(state.ref.deployment, state.cooledUntil);
    }
    return cooled ?? NONE;
  }

  recordFailure(ref: DeploymentRef, now: number, retryAfterMs: number | null): Promise<number | null> {
    this.failuresSeen.push({ ...ref, retryAfterMs });
    const state = this.state(ref);
    state.failures = state.failures.filter((at) => at > now - this.policy.windowMs);
    state.failures.push(now);
    if (state.failures.length < this.policy.fails) return Promise.resolve(null);
    state.failures = [];
    state.cooledUntil = now + Math.max(this.policy.cooldownMs, retryAfterMs ?? 0);
    return Promise.resolve(state.cooledUntil);
  }

  take(ref: DeploymentRef, limits: DeploymentLimits, tokens: number, now: number): Promise<boolean> {
    const state = this.state(ref);
    const minute = Math.floor(now / MINUTE_MS);
    if (state.minute !== minute) Object.assign(state, { minute, requests: 0, tokens: 0 });
    const fits = (limits.rpm === undefined || state.requests + 1 <= limits.rpm) && (limits.tpm === undefined || state.tokens + tokens <= limits.tpm);
    if (fits) {
      state.requests += 1;
      state.tokens += tokens;
    }
    return Promise.resolve(fits);
  }

  snapshot(now: number): Promise<DeploymentHealthRow[]> {
    const minute = Math.floor(now / MINUTE_MS);
    return Promise.resolve(
      [...this.states.values()].map((s) => ({
        ...s.ref,
        recentFailures: s.failures.filter((at) => at > now - this.policy.windowMs).length,
        cooledUntil: s.cooledUntil !== null && s.cooledUntil > now ? s.cooledUntil : null,
        minuteRequests: s.minute === minute ? s.requests : 0,
        minuteTokens: s.minute === minute ? s.tokens : 0,
      })),
    );
  }

  /** Nothing runs in the background to stop. */
  close(): void {
    this.states.clear();
  }
}
