/**
 * What the status site keeps: per-model traffic rolled up per minute (kept about a day) and
 * per hour (kept a month), and the incident log. Latency is stored as counts per bucket index;
 * what a bucket means is the status plugin's business.
 */

export type RollupPeriod = 'minute' | 'hour';

/** One model's figures for one minute (the store adds them into that minute and its hour). */
export interface StatusSample {
  model: string;
  /** Epoch ms of the minute's start. */
  minute: number;
  requests: number;
  failures: number;
  /** Latency bucket index → count of successful requests in it. */
  latency: ReadonlyMap<number, number>;
}

export interface ModelTotals {
  model: string;
  requests: number;
  failures: number;
}

export interface LatencyCount {
  model: string;
  bucket: number;
  count: number;
}

export type IncidentStatus = 'investigating' | 'identified' | 'monitoring' | 'resolved';
export type IncidentImpact = 'minor' | 'major' | 'critical';

export interface IncidentUpdate {
  at: number;
  status: IncidentStatus;
  message: string;
}

export interface IncidentRecord {
  id: string;
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  /** Canonical model IDs affected; empty means the whole gateway. */
  models: string[];
  /** Opened by the gateway's error-rate watch rather than by an operator. */
  automatic: boolean;
  startedAt: number;
  resolvedAt: number | null;
  updatedAt: number;
  /** Newest first. */
  updates: IncidentUpdate[];
}

export interface NewIncident {
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  models: string[];
  automatic: boolean;
  message: string;
  now: number;
}

export interface IncidentPatch {
  title?: string;
  status?: IncidentStatus;
  impact?: IncidentImpact;
  models?: string[];
  /** Added to the incident's updates (with the resulting status). */
  message?: string;
  now: number;
}

export interface StatusStore {
  /** Adds samples into their minute and hour rollups, in one transaction. */
  record(samples: readonly StatusSample[]): Promise<void>;
  /** Requests and failures per model since `since` (epoch ms), from the given rollup. */
  totals(period: RollupPeriod, since: number): Promise<ModelTotals[]>;
  /** Latency bucket counts per model since `since`, from the given rollup. */
  latency(period: RollupPeriod, since: number): Promise<LatencyCount[]>;
  /** Drops minute rollups older than `minutesBefore` and hour rollups older than `hoursBefore`. */
  prune(minutesBefore: number, hoursBefore: number): Promise<void>;
  createIncident(input: NewIncident): Promise<IncidentRecord>;
  updateIncident(id: string, patch: IncidentPatch): Promise<IncidentRecord | undefined>;
  getIncident(id: string): Promise<IncidentRecord | undefined>;
  /** Newest first: open incidents, and resolved ones that started after `since`. */
  listIncidents(since: number): Promise<IncidentRecord[]>;
  /** Open incidents the gateway opened itself (so a restart can still resolve them). */
  openAutomaticIncidents(): Promise<IncidentRecord[]>;
}
