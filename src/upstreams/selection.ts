import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Call } from '../chain/call.js';
import type { Deployment, Deployments } from './deployments.js';
import type { UpstreamHealth } from './health.js';

/**
 * Which deployment of a family an attempt goes to (docs/deployments.md#selection): among those
 * that serve the model and are not cooled down, the call's pinned deployment, else the
 * rendezvous-hash choice of its affinity key, else a weighted random one; a deployment that
 * declares `rpm`/`tpm` must also have headroom (taken from the shared health). A family of one
 * deployment with no limits and no model list costs a lookup: nothing is hashed, taken or
 * allocated.
 */

/** No deployment can take the attempt: each is cooled down or out of headroom until `retryAfterMs`. */
export interface Exhausted {
  readonly retryAfterMs: number;
}

export type Selection = Deployment | Exhausted;

export const isExhausted = (selection: Selection): selection is Exhausted => 'retryAfterMs' in selection;

const MINUTE_MS = 60_000;

export class DeploymentSelector {
  constructor(
    private readonly deployments: Deployments,
    private readonly health: UpstreamHealth,
    private readonly log: Logger,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * The deployment for the call's next attempt of `model` at `now` (epoch ms), avoiding
   * `avoid` (deployments that already failed it). Null when `avoid` leaves none: the caller
   * decides what a retry does then. Synchronous (no promise) for a family of one plain deployment.
   */
  choose(call: Call, family: string, model: string, now: number, avoid: ReadonlySet<string> | null = null): Selection | null | Promise<Selection | null> {
    const list = this.deployments.of(family);
    const only = list[0];
    // The hot path of a family of one deployment: always tried (its failures go to the retry policy).
    if (list.length === 1 && only?.limits === null && only.models === null) return avoid?.has(only.name) ? null : only;
    return this.chooseAmong(call, list, family, model, now, avoid);
  }

  /** A failed attempt (429, 5xx, a timeout, a connection error) counts towards the deployment's cooldown. */
  failed(deployment: Deployment, now: number, retryAfterMs: number | null): void {
    this.health.recordFailure(deployment.ref, now, retryAfterMs).then(
      (until) => {
        if (until !== null)
          this.log.warn(
            { family: deployment.family, deployment: deployment.name, cooled_until: new Date(until).toISOString() },
            'upstream deployment cooled down',
          );
      },
      (error: unknown) => this.log.error({ err: error, family: deployment.family, deployment: deployment.name }, 'recording an upstream failure failed'),
    );
  }

  private async chooseAmong(
    call: Call,
    list: readonly Deployment[],
    family: string,
    model: string,
    now: number,
    avoid: ReadonlySet<string> | null,
  ): Promise<Selection | null> {
    const serving = list.filter((d) => (d.models === null || d.models.has(model)) && !avoid?.has(d.name));
    if (serving.length === 0) return null;
    const cooled = this.health.cooledDown(family, now);
    const healthy = serving.filter((d) => !cooled.has(d.name));
    let soonest = Number.POSITIVE_INFINITY;
    for (const d of serving) soonest = Math.min(soonest, cooled.get(d.name) ?? Number.POSITIVE_INFINITY);
    for (const deployment of this.order(call, healthy)) {
      if (deployment.limits === null) return deployment;
      if (await this.health.take(deployment.ref, deployment.limits, estimatedTokens(call), now)) return deployment;
      soonest = Math.min(soonest, now - (now % MINUTE_MS) + MINUTE_MS);
    }
    return { retryAfterMs: Math.max(1, Math.ceil((Number.isFinite(soonest) ? soonest : now + MINUTE_MS) - now)) };
  }

  /** The healthy deployments in the order they are tried. */
  private order(call: Call, healthy: Deployment[]): Deployment[] {
    if (healthy.length <= 1) return healthy;
    const pinned = call.pinnedDeployment === null ? undefined : healthy.find((d) => d.name === call.pinnedDeployment);
    const rest = call.affinityKey === null ? weightedShuffle(healthy, this.random) : rendezvousOrder(call.affinityKey, healthy);
    return pinned ? [pinned, ...rest.filter((d) => d !== pinned)] : rest;
  }
}

/**
 * Tokens a call may take from a deployment's minute, for `tpm`: its request bytes (a bound of
 * its prompt tokens, as the ceiling reserves) over 4, plus the output it may ask for.
 */
function estimatedTokens(call: Call): number {
  const bytes = (call.rawJson?.length ?? 0) + call.replayedInputBytes;
  return Math.ceil(bytes / 4) + (call.outline.maxOutputTokens ?? 0);
}

/** Weighted random order: each draw picks among the remaining deployments in proportion to weight. */
function weightedShuffle(deployments: readonly Deployment[], random: () => number): Deployment[] {
  const left = [...deployments];
  const out: Deployment[] = [];
  while (left.length > 0) {
    let total = 0;
    for (const d of left) total += d.weight;
    let point = random() * total;
    let index = left.length - 1;
    for (let i = 0; i < left.length; i += 1) {
      point -= (left[i] as Deployment).weight;
      if (point < 0) {
        index = i;
        break;
      }
    }
    out.push(...left.splice(index, 1));
  }
  return out;
}

/**
 * Weighted rendezvous hashing: each deployment scores `-weight / ln(h)`, `h` a uniform hash of
 * key and name in (0, 1); the highest score wins. Every instance computes the same order with no
 * shared state, each deployment wins in proportion to its weight, and a key moves only when its
 * deployment leaves the eligible set.
 */
export function rendezvousOrder(key: string, deployments: readonly Deployment[]): Deployment[] {
  const scored = deployments.map((d) => ({ d, score: -d.weight / Math.log(unitHash(`${key}\u0000${d.name}`)) }));
  scored.sort((a, b) => b.score - a.score || (a.d.name < b.d.name ? -1 : 1));
  return scored.map((s) => s.d);
}

/** A uniform hash of `text` (SHA-256's first 53 bits) mapped into the open interval (0, 1). */
function unitHash(text: string): number {
  const digest = createHash('sha256').update(text).digest();
  return (digest.readUIntBE(0, 6) * 32 + ((digest[6] as number) >>> 3) + 0.5) / 2 ** 53;
}
