import type { Catalogue } from '../../src/plugin-api.js';
import type { IncidentImpact, IncidentRecord, ModelTotals, RollupPeriod, StatusStore } from './store/status.js';
import { dailySeries, historySpan, hourlyLatency, uptimeOf, type Day, type LatencyPoint } from './history.js';
import { quantileMs } from './latency-buckets.js';

/** The figures of /status and /status.json: what the gateway recorded, not a prober's view. */

export const WINDOWS = [
  { name: '24h', ms: 24 * 3_600_000, period: 'minute' },
  { name: '7d', ms: 7 * 24 * 3_600_000, period: 'hour' },
  { name: '30d', ms: 30 * 24 * 3_600_000, period: 'hour' },
] as const satisfies ReadonlyArray<{ name: string; ms: number; period: RollupPeriod }>;

export type WindowName = (typeof WINDOWS)[number]['name'];

/** Success share of the requests that reached an upstream (null: none did). */
export type Uptime = Record<WindowName, number | null>;

export type State = 'operational' | 'degraded' | 'partial_outage' | 'major_outage';

export interface ModelStatus {
  id: string;
  family: string;
  state: State;
  /** Answered by a built-in simulator, not the real vendor. */
  simulated: boolean;
  uptime: Uptime;
  requests_24h: number;
  /** The same requests by endpoint name (`chat.completions`, `responses`, `messages`, …): only endpoints with calls. */
  requests_24h_by_endpoint: Record<string, number>;
  /** Of successful requests in the last 24 h, until their first byte; null without data. */
  latency_ms: { p50: number; p95: number; p99: number } | null;
  /** The last 90 UTC days, oldest first, today (so far) last. */
  days: Day[];
  /** The same latency per hour, the 24 hours up to the current one, oldest first. */
  latency_24h: LatencyPoint[];
}

export interface IncidentJson {
  id: string;
  title: string;
  status: IncidentRecord['status'];
  impact: IncidentImpact;
  models: string[];
  automatic: boolean;
  started_at: string;
  resolved_at: string | null;
  updated_at: string;
  updates: Array<{ at: string; status: string; message: string }>;
}

export interface StatusReport {
  generated_at: string;
  status: { state: State; description: string };
  simulated_families: string[];
  uptime: Uptime;
  /** Every model's days summed, as `ModelStatus.days`. */
  days: Day[];
  models: ModelStatus[];
  /** Open ones and those that started in the 90 days of the history, newest first. */
  incidents: IncidentJson[];
}

const STATE_OF_IMPACT: Readonly<Record<IncidentImpact, State>> = { minor: 'degraded', major: 'partial_outage', critical: 'major_outage' };
const STATE_ORDER: readonly State[] = ['operational', 'degraded', 'partial_outage', 'major_outage'];
export const STATE_TEXT: Readonly<Record<State, string>> = {
  operational: 'Operational',
  degraded: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
};

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function incidentJson(incident: IncidentRecord): IncidentJson {
  return {
    id: incident.id,
    title: incident.title,
    status: incident.status,
    impact: incident.impact,
    models: incident.models,
    automatic: incident.automatic,
    started_at: iso(incident.startedAt) as string,
    resolved_at: iso(incident.resolvedAt),
    updated_at: iso(incident.updatedAt) as string,
    updates: incident.updates.map((u) => ({ at: iso(u.at) as string, status: u.status, message: u.message })),
  };
}

const worst = (states: readonly State[]): State => states.reduce<State>((a, b) => (STATE_ORDER.indexOf(b) > STATE_ORDER.indexOf(a) ? b : a), 'operational');

function sum(rows: readonly ModelTotals[]): { requests: number; failures: number } {
  return rows.reduce((acc, row) => ({ requests: acc.requests + row.requests, failures: acc.failures + row.failures }), { requests: 0, failures: 0 });
}

/** A window's start, aligned to its rollup so that 7 d and 30 d include the whole oldest hour. */
function since(now: number, window: (typeof WINDOWS)[number]): number {
  const unit = window.period === 'minute' ? 60_000 : 3_600_000;
  return Math.floor((now - window.ms) / unit) * unit;
}

export async function buildReport(store: StatusStore, catalogue: Catalogue, simulated: readonly string[], now: number): Promise<StatusReport> {
  const totals = new Map<WindowName, ModelTotals[]>();
  for (const window of WINDOWS) totals.set(window.name, await store.totals(window.period, since(now, window)));
  const latency = new Map<string, Map<number, number>>();
  for (const row of await store.latency('minute', since(now, WINDOWS[0]))) {
    const counts = latency.get(row.model) ?? new Map<number, number>();
    counts.set(row.bucket, row.count);
    latency.set(row.model, counts);
  }
  const byEndpoint = new Map<string, Record<string, number>>();
  for (const row of await store.endpointTotals(since(now, WINDOWS[0]))) {
    const counts = byEndpoint.get(row.model) ?? {};
    counts[row.endpoint] = row.requests;
    byEndpoint.set(row.model, counts);
  }
  const { firstDay, firstHour } = historySpan(now);
  const days = dailySeries(await store.days(firstDay), firstDay);
  const hourly = hourlyLatency(await store.latencySeries('hour', firstHour), firstHour);
  const incidents = await store.listIncidents(firstDay);
  const open = incidents.filter((i) => i.resolvedAt === null);
  const stateOf = (model: string): State => worst(open.filter((i) => i.models.length === 0 || i.models.includes(model)).map((i) => STATE_OF_IMPACT[i.impact]));

  const models = catalogue.models.map((model): ModelStatus => {
    const of = (name: WindowName): ModelTotals | undefined => totals.get(name)?.find((row) => row.model === model.id);
    const counts = latency.get(model.id);
    const p = (q: number): number | null => (counts ? quantileMs(counts, q) : null);
    const p50 = p(0.5);
    return {
      id: model.id,
      family: model.family,
      state: stateOf(model.id),
      simulated: simulated.includes(model.family),
      uptime: { '24h': uptimeOf(of('24h')), '7d': uptimeOf(of('7d')), '30d': uptimeOf(of('30d')) },
      requests_24h: of('24h')?.requests ?? 0,
      requests_24h_by_endpoint: byEndpoint.get(model.id) ?? {},
      latency_ms: p50 === null ? null : { p50, p95: p(0.95) as number, p99: p(0.99) as number },
      days: days.of(model.id),
      latency_24h: hourly(model.id),
    };
  });
  const overall = worst([...models.map((m) => m.state), ...open.filter((i) => i.models.length === 0).map((i) => STATE_OF_IMPACT[i.impact])]);
  return {
    generated_at: new Date(now).toISOString(),
    status: { state: overall, description: overall === 'operational' ? 'All systems operational' : STATE_TEXT[overall] },
    simulated_families: [...simulated],
    uptime: {
      '24h': uptimeOf(sum(totals.get('24h') ?? [])),
      '7d': uptimeOf(sum(totals.get('7d') ?? [])),
      '30d': uptimeOf(sum(totals.get('30d') ?? [])),
    },
    days: days.all,
    models,
    incidents: incidents.map(incidentJson),
  };
}
