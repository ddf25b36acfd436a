import type { Logger } from 'pino';
import type { Clock } from '../../src/plugin-api.js';
import type { AttemptCount, IncidentRecord, StatusStore } from './store/status.js';

export interface WatchSettings {
  /** Open an incident when upstream errors / attempts over the window reach this. */
  openAt: number;
  /** Resolve it when the rate falls below this. */
  resolveBelow: number;
  windowSeconds: number;
  /** No verdict on fewer attempts than this in the window (an idle model keeps its state). */
  minAttempts: number;
}

/** Attempts are counted per model in slots of this length; the window is made of whole slots. */
export const SLOT_MS = 10_000;

/** A model's attempts and upstream errors over some span. */
type Tally = Omit<AttemptCount, 'slot'>;

const percent = (rate: number): string => `${Math.round(rate * 1000) / 10}%`;
const describe = ({ attempts, errors }: Tally, span: string): string => `${percent(errors / attempts)} of ${attempts} upstream attempts failed ${span}`;

/**
 * Watches each model's upstream error rate over the window, across every gateway instance:
 * each counts its own attempts per model and 10-s slot in memory, and `check()` (on a timer,
 * and before every status report) adds them into the store's shared counts, then decides from
 * the sums of every instance's slots inside the window. It opens an automatic incident when
 * the rate reaches the threshold — the store keeps at most one open per model, whichever
 * instance opens it — and resolves the open ones when it recovers. A resolve by hand, through
 * any instance, is seen at the next check.
 *
 * Only models with new attempts are decided, each by the instances that added them: the last
 * of those to add reads everyone's counts. So a model without traffic keeps its state, and a
 * resolve by hand holds until that model's errors go on: after a resolve, a new incident needs
 * the attempts since the resolve to reach the threshold too.
 */
export class IncidentWatch {
  private counts = new Map<string, AttemptCount>();
  /** Models whose attempts were added to the store but not decided on yet. */
  private undecided = new Set<string>();
  private checking: Promise<void> = Promise.resolve();

  constructor(
    private readonly settings: WatchSettings,
    private readonly store: StatusStore,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** One upstream attempt on `model`: whether it failed on the upstream's side. */
  observe(model: string, error: boolean): void {
    this.add({ model, slot: Math.floor(this.clock.now() / SLOT_MS) * SLOT_MS, attempts: 1, errors: error ? 1 : 0 });
  }

  /** Adds this instance's counts to the store and decides; checks run one after another, failures are logged. */
  check(): Promise<void> {
    this.checking = this.checking.then(() => this.flushAndDecide().catch((error: unknown) => this.log.error({ err: error }, 'incident check failed')));
    return this.checking;
  }

  private async flushAndDecide(): Promise<void> {
    if (this.counts.size > 0) {
      const counts = [...this.counts.values()];
      this.counts = new Map();
      try {
        await this.store.addAttempts(counts);
      } catch (error) {
        for (const count of counts) this.add(count); // kept for the next check
        throw error;
      }
      for (const { model } of counts) this.undecided.add(model);
    }
    if (this.undecided.size === 0) return;
    const now = this.clock.now();
    const since = now - this.settings.windowSeconds * 1000;
    const totals = new Map((await this.store.attemptTotals(since)).map((total) => [total.model, total]));
    const open = openByModel(await this.store.openAutomaticIncidents());
    // A model stays undecided until its verdict is through: a failed check retries it.
    for (const model of [...this.undecided]) {
      const total = totals.get(model);
      if (total) await this.decide(total, open.get(model) ?? [], since, now);
      this.undecided.delete(model);
    }
  }

  private async decide(window: Tally, incidents: readonly IncidentRecord[], since: number, now: number): Promise<void> {
    const { model, attempts, errors } = window;
    if (attempts < this.settings.minAttempts) return;
    const span = `over the last ${this.settings.windowSeconds} s`;
    if (incidents.length > 0) {
      if (errors / attempts < this.settings.resolveBelow) await this.resolve(incidents, model, describe(window, span), now);
      return;
    }
    if (!this.overThreshold(window)) return;
    // When the latest automatic incident naming the model was resolved (by hand or on recovery);
    // looked up only for a model over the threshold with none open.
    const resolvedAt = await this.store.lastAutomaticResolve(model);
    const from = resolvedAt === undefined ? since : (Math.floor(resolvedAt / SLOT_MS) + 1) * SLOT_MS;
    if (from <= since) return this.openIncident(model, describe(window, span), now);
    // Resolved inside the window: the attempts since must reach the threshold too, counted from
    // the slot after the resolve's (that one may hold failures from before it).
    const fresh = (await this.store.attemptTotals(from)).find((total) => total.model === model);
    if (fresh && this.overThreshold(fresh)) await this.openIncident(model, describe(fresh, 'since the last incident was resolved'), now);
  }

  private overThreshold({ attempts, errors }: Tally): boolean {
    return attempts >= this.settings.minAttempts && errors / attempts >= this.settings.openAt;
  }

  private async openIncident(model: string, detail: string, now: number): Promise<void> {
    const opened = await this.store.openAutomaticIncident(model, {
      title: `Elevated upstream errors on ${model}`,
      status: 'investigating',
      impact: 'major',
      models: [model],
      automatic: true,
      message: `Opened automatically: ${detail}.`,
      now,
    });
    if (opened) this.log.warn({ model, detail, incident: opened.id }, 'incident opened: upstream error rate over the threshold');
  }

  private async resolve(incidents: readonly IncidentRecord[], model: string, detail: string, now: number): Promise<void> {
    for (const incident of incidents) {
      const resolved = await this.store.updateIncident(incident.id, { status: 'resolved', message: `Resolved automatically: ${detail}.`, now, ifOpen: true });
      if (resolved) this.log.info({ model, detail, incident: incident.id }, 'incident resolved: upstream error rate recovered');
    }
  }

  private add(count: AttemptCount): void {
    const id = `${count.slot} ${count.model}`;
    const seen = this.counts.get(id);
    if (!seen) this.counts.set(id, { ...count });
    else {
      seen.attempts += count.attempts;
      seen.errors += count.errors;
    }
  }
}

/** Open automatic incidents by the models they name. */
function openByModel(incidents: readonly IncidentRecord[]): Map<string, IncidentRecord[]> {
  const byModel = new Map<string, IncidentRecord[]>();
  for (const incident of incidents) for (const model of incident.models) byModel.set(model, [...(byModel.get(model) ?? []), incident]);
  return byModel;
}
