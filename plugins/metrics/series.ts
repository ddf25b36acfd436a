import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { costOf, DEFAULT_DEPLOYMENT, type Call, type SettledCall } from '../../src/plugin-api.js';

/**
 * The gateway's series. Every label value comes from configuration or a fixed set — the
 * canonical model ID, the family, the endpoint name, a status class, an upstream status or
 * failure kind — never from a key, a caller's string or a raw path.
 */

/** 5 ms … 120 s: fast refusals to the longest non-streamed completions. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 45, 60, 90, 120];
/** The gateway's own share is small: 0.25 ms … 1 s. */
export const OVERHEAD_BUCKETS = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** Label value for calls refused before their model was known (401, 400). */
const NONE = 'none';

/**
 * The label for an adjusted parameter: indices dropped (`tools[7].type` → `tools[].type`), so the
 * label's values are bounded by the gateway's own parameter names, never by a caller's request.
 */
const adjustedParamLabel = (param: string): string => param.replace(/\[\d+\]/g, '[]');

const statusClass = (status: number): string => (status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : NONE);

/**
 * Histogram label sets resolved and validated once, then looked up by a string key (prom-client
 * still hashes the set on each observation; counters avoid even that, see DeferredCounter).
 */
class Bound<Child> {
  private readonly children = new Map<string, Child>();

  constructor(private readonly bind: (labels: Record<string, string>) => Child) {}

  get(key: string, labels: Record<string, string>): Child {
    let child = this.children.get(key);
    if (!child) {
      child = this.bind(labels);
      this.children.set(key, child);
    }
    return child;
  }
}

interface HistogramChild {
  observe(value: number): void;
}

/**
 * A counter summed here per label set and handed to prom-client only when scraped (its
 * `collect`): prom-client hashes the label object on every `inc`, which the hot path then
 * never pays. Keys are the (bounded) label values.
 */
class DeferredCounter {
  private readonly sums = new Map<string, { labels: Record<string, string>; pending: number; reported: boolean }>();

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[]) {
    const sums = this.sums;
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        for (const sum of sums.values()) {
          if (sum.pending === 0 && sum.reported) continue;
          this.inc(sum.labels, sum.pending);
          sum.pending = 0;
          sum.reported = true;
        }
      },
    });
  }

  add(key: string, labels: Record<string, string>, value = 1): void {
    const sum = this.sums.get(key);
    if (sum) sum.pending += value;
    else this.sums.set(key, { labels, pending: value, reported: false });
  }
}

export class GatewaySeries {
  private readonly requests: DeferredCounter;
  private readonly duration: Bound<HistogramChild>;
  private readonly firstToken: Bound<HistogramChild>;
  private readonly overhead: Bound<HistogramChild>;
  private readonly attempts: DeferredCounter;
  private readonly upstreamErrors;
  private readonly retries;
  private readonly fallbacks;
  private readonly tokens: DeferredCounter;
  private readonly cost: DeferredCounter;
  private readonly adjusted: DeferredCounter;
  private readonly inFlight;
  /** Calls counted in flight, so a call refused before this plugin's onRequest is never decremented. */
  private readonly flying = new WeakSet<Call>();

  constructor(registry: Registry) {
    const registers = [registry];
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter({ name, help, labelNames, registers });
    const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
      new Histogram({ name, help, labelNames, buckets, registers });
    const deferredCounter = (name: string, help: string, labelNames: readonly string[]) => new DeferredCounter(registry, name, help, labelNames);
    const boundHistogram = (name: string, help: string, labelNames: readonly string[], buckets: number[]) => {
      const series = histogram(name, help, labelNames, buckets);
      return new Bound<HistogramChild>((labels) => series.labels(labels));
    };
    this.requests = deferredCounter('gateway_requests_total', 'Calls answered, by canonical model, family, endpoint and status class.', [
      'model',
      'family',
      'endpoint',
      'status_class',
    ]);
    this.duration = boundHistogram(
      'gateway_request_duration_seconds',
      'From request received to reply complete, for calls that reached an upstream.',
      ['model', 'family', 'endpoint'],
      LATENCY_BUCKETS,
    );
    this.firstToken = boundHistogram(
      'gateway_time_to_first_token_seconds',
      'From request received to the first streamed event written to the caller (streamed calls).',
      ['model', 'family'],
      LATENCY_BUCKETS,
    );
    this.overhead = boundHistogram(
      'gateway_overhead_seconds',
      'Time the gateway itself spent on a call: total minus upstream exchanges and retry backoff.',
      ['family'],
      OVERHEAD_BUCKETS,
    );
    this.attempts = deferredCounter(
      'gateway_upstream_attempts_total',
      'Upstream attempts (first tries, retries and fallbacks), by the model asked and the deployment of its family tried.',
      ['model', 'family', 'deployment'],
    );
    this.upstreamErrors = counter(
      'gateway_upstream_errors_total',
      'Failed upstream attempts, by family and code: the upstream status, or connect, connect_timeout, ' +
        'headers_timeout, reset, stream_idle, stream_error, invalid_body, not_a_stream; and the deployment that failed.',
      ['family', 'code', 'deployment'],
    );
    this.retries = counter(
      'gateway_upstream_retries_total',
      'Retries of the same model (on another deployment at once, or after a backoff), by the code and deployment of the failure that caused them.',
      ['model', 'family', 'reason', 'deployment'],
    );
    this.fallbacks = counter('gateway_fallbacks_total', 'Calls handed to a sibling model after a 503.', ['family', 'from', 'to']);
    this.tokens = deferredCounter('gateway_tokens_total', 'Tokens billed, by the model that answered and kind (prompt, completion).', [
      'model',
      'family',
      'kind',
    ]);
    this.cost = deferredCounter(
      'gateway_charged_cost_nanodollars_total',
      'Charged cost in nano-dollars (1e-9 USD; integers, exact), by the model that answered.',
      ['model', 'family'],
    );
    this.adjusted = deferredCounter(
      'gateway_adjusted_parameters_total',
      'Parameters honoured only approximately and announced in x-gateway-adjusted, by parameter (indices dropped).',
      ['param'],
    );
    this.inFlight = new Gauge({ name: 'gateway_requests_in_flight', help: 'Calls being handled now.', registers });
  }

  started(call: Call): void {
    this.flying.add(call);
    this.inFlight.inc();
  }

  /** Everything about a finished call, once (from onComplete). */
  completed(call: SettledCall): void {
    if (this.flying.delete(call)) this.inFlight.dec();
    const model = call.model;
    const id = model?.id ?? NONE;
    const family = model?.family ?? NONE;
    const endpoint = call.endpoint.name;
    const status = statusClass(call.status);
    this.requests.add(`${id}|${endpoint}|${status}`, { model: id, family, endpoint, status_class: status });
    this.countAttempts(call);
    if (call.adjustments) {
      for (const { param } of call.adjustments) {
        const label = adjustedParamLabel(param);
        this.adjusted.add(label, { param: label });
      }
    }
    if (!model) return;
    const labels = { model: id, family };
    if (call.attempts > 0) {
      const now = performance.now();
      const { received, firstByte } = call.timings;
      this.duration.get(`${id}|${endpoint}`, { model: id, family, endpoint }).observe((now - received) / 1000);
      if (call.stream && firstByte) this.firstToken.get(id, labels).observe((firstByte - received) / 1000);
      this.overhead.get(family, { family }).observe(call.overheadMs(now) / 1000);
    }
    // An answer given again from the response cache used no upstream tokens and cost nothing.
    if (call.usage && call.givenAnswer === null) {
      // Label objects written out, not spread (docs/performance.md#node-and-v8).
      this.tokens.add(`${id}|prompt`, { model: id, family, kind: 'prompt' }, call.usage.promptTokens);
      this.tokens.add(`${id}|completion`, { model: id, family, kind: 'completion' }, call.usage.completionTokens);
      this.cost.add(id, labels, costOf(model, call.usage).charged);
    }
  }

  private countAttempts(call: Call): void {
    const attempts = call.upstreamAttempts;
    attempts.forEach((attempt, index) => {
      const { model, family, code, deployment } = attempt;
      // Deployment names come from the config: a bounded label. The single form's key stays the model alone.
      this.attempts.add(deployment === DEFAULT_DEPLOYMENT ? model : `${model}|${deployment}`, { model, family, deployment });
      if (code) this.upstreamErrors.inc({ family, code, deployment });
      if (attempt.then === 'retry') this.retries.inc({ model, family, reason: code ?? NONE, deployment });
      const next = attempts[index + 1];
      if (attempt.then === 'fallback' && next) this.fallbacks.inc({ family, from: model, to: next.model });
    });
  }
}
