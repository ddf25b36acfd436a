import type { Logger } from 'pino';
import type { Clock, StatusStore } from '../../src/plugin-api.js';
import { SlidingCounts } from './sliding-counts.js';

export interface WatchSettings {
  /** Open an incident when upstream errors / attempts over the window reach this. */
  openAt: number;
  /** Resolve it when the rate falls below this. */
  resolveBelow: number;
  windowSeconds: number;
  /** No verdict on fewer attempts than this in the window (an idle model keeps its state). */
  minAttempts: number;
}

const percent = (rate: number): string => `${Math.round(rate * 1000) / 10}%`;

/**
 * Watches each model's upstream error rate over a sliding window and opens an automatic
 * incident when it passes the threshold, resolving it when the rate recovers. Writes go to the
 * store one after another, off the caller's path; `settled()` waits for them.
 */
export class IncidentWatch {
  private readonly windows = new Map<string, SlidingCounts>();
  /** model → its open automatic incident (the id arrives once the store wrote it). */
  private readonly open = new Map<string, Promise<string>>();
  private work: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly settings: WatchSettings,
    private readonly store: StatusStore,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Picks up automatic incidents left open by an earlier run, so recovery can resolve them. */
  async restore(): Promise<void> {
    for (const incident of await this.store.openAutomaticIncidents()) {
      for (const model of incident.models) this.open.set(model, Promise.resolve(incident.id));
    }
  }

  /** One upstream attempt on `model`: whether it failed on the upstream's side. */
  observe(model: string, error: boolean): void {
    let window = this.windows.get(model);
    if (!window) {
      window = new SlidingCounts(this.settings.windowSeconds);
      this.windows.set(model, window);
    }
    const now = this.clock.now();
    window.add(now, error);
    const { attempts, errors } = window.read(now);
    if (attempts < this.settings.minAttempts) return;
    const rate = errors / attempts;
    const detail = `${percent(rate)} of ${attempts} upstream attempts failed over the last ${this.settings.windowSeconds} s`;
    if (!this.open.has(model) && rate >= this.settings.openAt) this.openIncident(model, detail, now);
    else if (this.open.has(model) && rate < this.settings.resolveBelow) this.resolveIncident(model, detail, now);
  }

  /** An operator resolved an automatic incident: stop tracking it (a new one opens if errors go on). */
  forget(incidentId: string): void {
    for (const [model, id] of this.open) {
      void id.then((value) => {
        if (value === incidentId && this.open.get(model) === id) this.open.delete(model);
      });
    }
  }

  /** Resolves once every incident write so far is done. */
  settled(): Promise<void> {
    return this.work.then(() => undefined);
  }

  private openIncident(model: string, detail: string, now: number): void {
    const created = this.enqueue(() =>
      this.store.createIncident({
        title: `Elevated upstream errors on ${model}`,
        status: 'investigating',
        impact: 'major',
        models: [model],
        automatic: true,
        message: `Opened automatically: ${detail}.`,
        now,
      }),
    ).then((incident) => incident?.id ?? '');
    this.open.set(model, created);
    this.log.warn({ model, detail }, 'incident opened: upstream error rate over the threshold');
  }

  private resolveIncident(model: string, detail: string, now: number): void {
    const id = this.open.get(model) as Promise<string>;
    this.open.delete(model);
    void this.enqueue(async () => {
      const incident = await this.store.getIncident(await id);
      if (!incident || incident.status === 'resolved') return;
      await this.store.updateIncident(incident.id, { status: 'resolved', message: `Resolved automatically: ${detail}.`, now });
    });
    this.log.info({ model, detail }, 'incident resolved: upstream error rate recovered');
  }

  /** Runs store writes one after another; a failure is logged, never thrown at a caller. */
  private enqueue<T>(job: () => Promise<T>): Promise<T | undefined> {
    const run = this.work.then(job).catch((error: unknown) => {
      this.log.error({ err: error }, 'incident write failed');
      return undefined;
    });
    this.work = run;
    return run;
  }
}
