/**
 * What the status site keeps: per-model traffic rolled up per minute (kept about a day), per
 * hour (kept a month) and per UTC day (kept 90 days), and the incident log. Latency is stored as counts per bucket index;
 * what a bucket means is the status plugin's business.
 */

export type RollupPeriod = 'minute' | 'hour';

/** One model's figures for one minute (the store adds them into that minute, its hour and its day). */
export interface StatusSample {
  model: string;
  /** Epoch ms of the minute's start. */
  minute: number;
  requests: number;
  failures: number;
  /** Latency bucket index → count of successful requests in it. */
  latency: ReadonlyMap<number, number>;
  /** Endpoint name (`chat.completions`, `responses`, …) → its requests; kept in the minute rollup only. */
  endpoints: ReadonlyMap<string, number>;
}

export interface ModelTotals {
  model: string;
  requests: number;
  failures: number;
}

/** A model's requests and failures on one UTC day. */
export interface DayTotals extends ModelTotals {
  /** Epoch ms of the day's start (00:00 UTC). */
  day: number;
}

/** Latency bucket counts of a model in one rollup (an hour, a minute). */
export interface LatencyAt extends LatencyCount {
  /** Epoch ms of the rollup's start. */
  start: number;
}

/** What `prune` drops: each kind of row older than its cut (epoch ms). */
export interface PruneCuts {
  /** Minute rollups, their endpoint counts included. */
  minutes: number;
  hours: number;
  days: number;
  /** The incident watch's attempt counts. */
  attempts: number;
}

export interface EndpointTotals {
  model: string;
  endpoint: string;
  requests: number;
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
  /** Apply only to an open incident: one already resolved is left as it is (answered undefined). */
  ifOpen?: boolean;
}

/** Upstream attempts on one model in one slot (10 s) as one instance counted them. */
export interface AttemptCount {
  model: string;
  /** Epoch ms of the slot's start. */
  slot: number;
  attempts: number;
  /** Attempts that failed on the upstream's side. */
  errors: number;
}

export interface AttemptTotals {
  model: string;
  attempts: number;
  errors: number;
}

export interface StatusStore {
  /** Adds samples into their minute, hour and day rollups (and their endpoint counts into the minute's), in one transaction. */
  record(samples: readonly StatusSample[]): Promise<void>;
  /** Requests and failures per model since `since` (epoch ms), from the given rollup. */
  totals(period: RollupPeriod, since: number): Promise<ModelTotals[]>;
  /** Latency bucket counts per model since `since`, from the given rollup. */
  latency(period: RollupPeriod, since: number): Promise<LatencyCount[]>;
  /** Latency bucket counts per model and rollup start since `since`, from the given rollup, ordered by model, start and bucket. */
  latencySeries(period: RollupPeriod, since: number): Promise<LatencyAt[]>;
  /** Requests and failures per model and UTC day, for the days starting at or after `since`, ordered by model and day. */
  days(since: number): Promise<DayTotals[]>;
  /** Requests per model and endpoint in the minutes starting at or after `since`, ordered by model and endpoint. */
  endpointTotals(since: number): Promise<EndpointTotals[]>;
  /** Drops the rows older than their cut. */
  prune(cuts: PruneCuts): Promise<void>;
  /** Adds attempt counts into their (model, slot): every instance's counts of a slot sum there. */
  addAttempts(counts: readonly AttemptCount[]): Promise<void>;
  /** Attempts and errors per model in the slots starting at or after `since`, summed over every instance. */
  attemptTotals(since: number): Promise<AttemptTotals[]>;
  createIncident(input: NewIncident): Promise<IncidentRecord>;
  /**
   * An automatic incident for `model` (`input.models` should be `[model]`), unless one the
   * watch opened for it is still open — whichever instance opened that one: at most one per
   * model, enforced by the database. The new incident, or undefined if one was open.
   */
  openAutomaticIncident(model: string, input: NewIncident): Promise<IncidentRecord | undefined>;
  updateIncident(id: string, patch: IncidentPatch): Promise<IncidentRecord | undefined>;
  getIncident(id: string): Promise<IncidentRecord | undefined>;
  /** Newest first: open incidents, and resolved ones that started after `since`. */
  listIncidents(since: number): Promise<IncidentRecord[]>;
  /** Open incidents the gateway opened itself (any instance, any run: their models' recovery resolves them). */
  openAutomaticIncidents(): Promise<IncidentRecord[]>;
  /**
   * When the latest resolved automatic incident naming `model` among its models was resolved —
   * by hand or on recovery, whoever opened it — or undefined if there is none (manual incidents
   * and open ones do not count). The incident watch's "since the last resolve".
   */
  lastAutomaticResolve(model: string): Promise<number | undefined>;
}
