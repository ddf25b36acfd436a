import type { Logger } from 'pino';
import type { AttemptCount, Clock, IncidentRecord, StatusStore } from '../../src/plugin-api.js';

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

const percent = (rate: number): string => `${Math.round(rate * 1000) / 10}%`;

/**
 * Watches each model's upstream error rate over the window, across every gateway instance:
 * each counts its own attempts per model and 10-s slot in memory, and `check()` (on a timer,
 * and before every status report) adds them into the store's shared counts, then decides from
 * the sums of every instance's slots inside the window. It opens an automatic incident when
 * the rate reaches the threshold — the store keeps at most one open per model, whichever
 * instance opens it — and resolves the open ones when it recovers. Nothing about incidents is
 * kept here: a resolve by hand, through any instance, is seen at the next check. An instance
 * that saw no attempt since its last check has nothing to add and decides nothing.
 */
export class IncidentWatch {
  private counts = new Map<string, AttemptCount>();
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
    this.checking = this.checking.then(() =>
      this.flushAndDecide().catch((error: unknown) => this.log.error({ err: error }, 'incident check failed')),
    );
    return this.checking;
  }

  private async flushAndDecide(): Promise<void> {
    if (this.counts.size === 0) return;
    const counts = [...this.counts.values()];
    this.counts = new Map();
    try {
      await this.store.addAttempts(counts);
    } catch (error) {
      for (const count of counts) this.add(count); // kept for the next check
      throw error;
    }
    const now = this.clock.now();
    const totals = await this.store.attemptTotals(now - this.settings.windowSeconds * 1000);
    const open = openByModel(await this.store.openAutomaticIncidents());
    for (const { model, attempts, errors } of totals) {
      if (attempts < this.settings.minAttempts) continue;
      const rate = errors / attempts;
      const detail = `${percent(rate)} of ${attempts} upstream attempts failed over the last ${this.settings.windowSeconds} s`;
      const incidents = open.get(model) ?? [];
      if (incidents.length === 0 && rate >= this.settings.openAt) await this.openIncident(model, detail, now);
      else if (incidents.length > 0 && rate < this.settings.resolveBelow) await this.resolve(incidents, model, detail, now);
    }
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
