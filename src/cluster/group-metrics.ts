import type { Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { isClusterMessage, type ClusterMessage, type CollectMessage, type RegistryJson, type ScrapeMessage } from './protocol.js';

/**
 * `/metrics` for the whole process group. The worker that takes the scrape asks the primary;
 * the primary collects every listening worker's registry as JSON and sums them with prom-client's
 * cluster aggregation (`AggregatorRegistry.aggregate`: each metric by its `aggregator`, `sum`
 * unless the metric says otherwise), so the text carries no per-worker label and counters and
 * histograms are the group's totals.
 *
 * Not `AggregatorRegistry.clusterMetrics()`: it asks every connected worker, including one still
 * starting (a replacement) that cannot answer yet, and then fails the whole scrape after 5 s.
 */

/** How long the primary waits for a worker's registry; past it, the scrape fails (a 500) rather than show a partial sum. */
const COLLECT_TIMEOUT_MS = 5_000;
/** How long a worker waits for the primary's answer. */
const SCRAPE_TIMEOUT_MS = COLLECT_TIMEOUT_MS + 1_000;

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/** Requests by id, each failing on its own after a timeout. */
class Pending<T> {
  private next = 0;
  private readonly waiting = new Map<number, Waiter<T>>();

  constructor(
    private readonly timeoutMs: number,
    private readonly what: string,
  ) {}

  /** Sends a request with a fresh id (through `send`) and waits for `settle` with that id. */
  request(send: (id: number) => void): Promise<T> {
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.settle(id, new Error(`${this.what}: no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.waiting.delete(id);
      };
      this.waiting.set(id, {
        resolve: (value) => {
          done();
          resolve(value);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      try {
        send(id);
      } catch (error) {
        this.settle(id, error as Error);
      }
    });
  }

  settle(id: number, outcome: T | Error): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return; // timed out already
    if (outcome instanceof Error) waiter.reject(outcome);
    else waiter.resolve(outcome);
  }
}

/** What may only grow: counters and histograms (gauges mean "now", and a dead worker has none). */
const monotonic = (metrics: RegistryJson): RegistryJson => metrics.filter((metric) => String(metric.type) === 'counter' || String(metric.type) === 'histogram');

/**
 * The primary's side: answers scrapes with the sum of the listening workers' registries. A worker
 * that dies leaves its counters and histograms as last collected in the sum (a replacement starts
 * from zero), so the group's counters never go down — a drop would read as a counter reset and
 * rate() would count the survivors' whole totals again. What a worker counted after the last
 * scrape before its death is lost, never counted twice.
 */
export class GroupMetrics {
  private readonly collects = new Pending<RegistryJson>(COLLECT_TIMEOUT_MS, 'a worker did not send its metrics');
  private readonly lastSeen = new Map<Worker, RegistryJson>();
  /** The departed workers' counters and histograms, summed into one registry's JSON; folded in order. */
  private departed: Promise<RegistryJson> = Promise.resolve([]);

  /** `listening`: the workers to sum (those that have told the primary they listen). */
  constructor(private readonly listening: () => readonly Worker[]) {}

  /** A worker's message that concerns metrics. */
  handle(worker: Worker, message: ClusterMessage): void {
    if (message.type === 'gateway:collected') {
      this.collects.settle(message.id, message.metrics ?? new Error(message.error ?? 'no metrics'));
    } else if (message.type === 'gateway:scrape') {
      this.text().then(
        (text) => send(worker, { type: 'gateway:scraped', id: message.id, text }),
        (error: unknown) => send(worker, { type: 'gateway:scraped', id: message.id, error: (error as Error).message }),
      );
    }
  }

  /** Prometheus text of every listening worker's metrics, summed, with what departed workers had counted. */
  async text(): Promise<string> {
    const registries = await Promise.all(this.listening().map((worker) => this.collect(worker)));
    return AggregatorRegistry.aggregate([...registries, await this.departed]).metrics();
  }

  /** A worker exited: what it had counted by the last scrape stays in the sums. */
  forget(worker: Worker): void {
    const last = this.lastSeen.get(worker);
    this.lastSeen.delete(worker);
    if (!last) return;
    // Never a rejected fold: every later scrape waits on it.
    this.departed = this.departed.then((before) =>
      AggregatorRegistry.aggregate([before, monotonic(last)])
        .getMetricsAsJSON()
        .catch(() => before),
    );
  }

  private async collect(worker: Worker): Promise<RegistryJson> {
    const metrics = await this.collects.request((id) => {
      const request: CollectMessage = { type: 'gateway:collect', id };
      send(worker, request, (error) => this.collects.settle(id, error));
    });
    if (worker.isConnected()) this.lastSeen.set(worker, metrics);
    return metrics;
  }
}

function send(worker: Worker, message: ClusterMessage, failed?: (error: Error) => void): void {
  // A worker that is going away cannot take it; the scrape's timeout or error answers for it.
  if (!worker.isConnected()) {
    failed?.(new Error(`worker ${worker.process.pid} is gone`));
    return;
  }
  worker.send(message, undefined, (error) => {
    if (error) failed?.(error);
  });
}

/** A worker's side: sends its registry when the primary collects, and asks the primary for the group's text. */
export class WorkerMetrics {
  private registry: Registry | null = null;
  private readonly scrapes = new Pending<string>(SCRAPE_TIMEOUT_MS, 'the primary did not answer the scrape');

  constructor() {
    process.on('message', (message: unknown) => {
      if (!isClusterMessage(message)) return;
      if (message.type === 'gateway:collect') this.answer(message);
      else if (message.type === 'gateway:scraped') this.scrapes.settle(message.id, message.text ?? new Error(message.error ?? 'no metrics'));
    });
  }

  /** The registry this worker's gateway counts in (set once the gateway is built, before it listens). */
  serve(registry: Registry): void {
    this.registry = registry;
  }

  /** The text of GET /metrics: the whole group's. */
  readonly scrape = (): Promise<string> =>
    this.scrapes.request((id) => {
      const request: ScrapeMessage = { type: 'gateway:scrape', id };
      process.send?.(request);
    });

  private answer({ id }: CollectMessage): void {
    const reply = (fields: { metrics: RegistryJson } | { error: string }): void => {
      process.send?.({ type: 'gateway:collected', id, ...fields });
    };
    if (!this.registry) return reply({ error: 'not serving yet' });
    this.registry.getMetricsAsJSON().then(
      (metrics) => reply({ metrics }),
      (error: unknown) => reply({ error: (error as Error).message }),
    );
  }
}
