import type { SqliteHandle } from '../../../src/plugin-api.js';
import { randomToken } from '../../../src/toolkit/secrets.js';
import { dayOf, patchIncident, rollupsOf, toIncident, type IncidentRow } from './rows.js';
import type {
  AttemptCount,
  AttemptTotals,
  DayTotals,
  EndpointTotals,
  IncidentPatch,
  IncidentRecord,
  IncidentUpdate,
  LatencyAt,
  LatencyCount,
  ModelTotals,
  NewIncident,
  PruneCuts,
  RollupPeriod,
  StatusSample,
  StatusStore,
} from './status.js';

type Db = SqliteHandle['db'];

/** The status site's rollups, the incident watch's attempt counts and the incident log in SQLite (migrations 3, 8, 13, 17 and 27). */
export class SqliteStatusStore implements StatusStore {
  private readonly addRollup;
  private readonly addLatency;
  private readonly addEndpoint;
  private readonly addDay;
  private readonly sumTotals;
  private readonly sumLatency;
  private readonly latencyByStart;
  private readonly dayRows;
  private readonly sumEndpoints;
  private readonly pruneRollups;
  private readonly pruneLatency;
  private readonly pruneEndpoints;
  private readonly pruneDays;
  private readonly insertIncident;
  private readonly updateIncidentRow;
  private readonly insertUpdate;
  private readonly nextSeq;
  private readonly byId;
  private readonly updatesOf;
  private readonly recent;
  private readonly openAutomatic;
  private readonly lastResolve;
  private readonly addAttempt;
  private readonly sumAttempts;
  private readonly pruneAttempts;

  private readonly db: Db;

  constructor({ db }: SqliteHandle) {
    this.db = db;
    this.addRollup = db.prepare(`INSERT INTO status_rollups (period, start, model, requests, failures)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (period, start, model) DO UPDATE SET
        requests = requests + excluded.requests, failures = failures + excluded.failures`);
    this.addLatency = db.prepare(`INSERT INTO status_latency (period, start, model, bucket, count)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (period, start, model, bucket) DO UPDATE SET count = count + excluded.count`);
    this.addEndpoint = db.prepare(`INSERT INTO status_endpoint_minutes (minute, model, endpoint, requests) VALUES (?, ?, ?, ?)
      ON CONFLICT (minute, model, endpoint) DO UPDATE SET requests = requests + excluded.requests`);
    this.addDay = db.prepare(`INSERT INTO status_days (day, model, requests, failures) VALUES (?, ?, ?, ?)
      ON CONFLICT (day, model) DO UPDATE SET requests = requests + excluded.requests, failures = failures + excluded.failures`);
    this.sumTotals = db.prepare(`SELECT model, SUM(requests) AS requests, SUM(failures) AS failures
      FROM status_rollups WHERE period = ? AND start >= ? GROUP BY model ORDER BY model`);
    this.sumLatency = db.prepare(`SELECT model, bucket, SUM(count) AS count
      FROM status_latency WHERE period = ? AND start >= ? GROUP BY model, bucket ORDER BY model, bucket`);
    this.latencyByStart = db.prepare(`SELECT model, start, bucket, count
      FROM status_latency WHERE period = ? AND start >= ? ORDER BY model, start, bucket`);
    this.dayRows = db.prepare('SELECT model, day, requests, failures FROM status_days WHERE day >= ? ORDER BY model, day');
    this.sumEndpoints = db.prepare(`SELECT model, endpoint, SUM(requests) AS requests
      FROM status_endpoint_minutes WHERE minute >= ? GROUP BY model, endpoint ORDER BY model, endpoint`);
    this.pruneEndpoints = db.prepare('DELETE FROM status_endpoint_minutes WHERE minute < ?');
    this.pruneDays = db.prepare('DELETE FROM status_days WHERE day < ?');
    this.pruneRollups = db.prepare('DELETE FROM status_rollups WHERE period = ? AND start < ?');
    this.pruneLatency = db.prepare('DELETE FROM status_latency WHERE period = ? AND start < ?');
    // An open incident of the watch's for the same model wins (migration 8's unique index).
    this.insertIncident = db.prepare(`INSERT INTO incidents
      (id, title, status, impact, models, automatic, watch_model, started_at, resolved_at, updated_at)
      VALUES (@id, @title, @status, @impact, @models, @automatic, @watchModel, @now, @resolvedAt, @now)
      ON CONFLICT (watch_model) WHERE watch_model IS NOT NULL AND resolved_at IS NULL DO NOTHING`);
    this.updateIncidentRow = db.prepare(
      'UPDATE incidents SET title = ?, status = ?, impact = ?, models = ?, resolved_at = ?, watch_model = ?, updated_at = ? WHERE id = ?',
    );
    this.insertUpdate = db.prepare('INSERT INTO incident_updates (incident_id, seq, at, status, message) VALUES (?, ?, ?, ?, ?)');
    this.nextSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 FROM incident_updates WHERE incident_id = ?').pluck();
    this.byId = db.prepare('SELECT * FROM incidents WHERE id = ?');
    this.updatesOf = db.prepare('SELECT at, status, message FROM incident_updates WHERE incident_id = ? ORDER BY seq DESC');
    this.recent = db.prepare('SELECT * FROM incidents WHERE resolved_at IS NULL OR started_at >= ? ORDER BY started_at DESC, rowid DESC');
    this.openAutomatic = db.prepare('SELECT * FROM incidents WHERE automatic = 1 AND resolved_at IS NULL');
    // Migration 17's partial index, newest resolve first: the walk stops at the first naming the model.
    this.lastResolve = db
      .prepare(
        `SELECT resolved_at FROM incidents
      WHERE automatic = 1 AND resolved_at IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(incidents.models) WHERE value = ?)
      ORDER BY resolved_at DESC LIMIT 1`,
      )
      .pluck();
    this.addAttempt = db.prepare(`INSERT INTO incident_attempts (model, slot, attempts, errors) VALUES (?, ?, ?, ?)
      ON CONFLICT (model, slot) DO UPDATE SET attempts = attempts + excluded.attempts, errors = errors + excluded.errors`);
    this.sumAttempts = db.prepare(`SELECT model, SUM(attempts) AS attempts, SUM(errors) AS errors
      FROM incident_attempts WHERE slot >= ? GROUP BY model ORDER BY model`);
    this.pruneAttempts = db.prepare('DELETE FROM incident_attempts WHERE slot < ?');
  }

  async record(samples: readonly StatusSample[]): Promise<void> {
    this.db.transaction(() => {
      for (const sample of samples) {
        for (const [period, start] of rollupsOf(sample)) {
          this.addRollup.run(period, start, sample.model, sample.requests, sample.failures);
          for (const [bucket, count] of sample.latency) this.addLatency.run(period, start, sample.model, bucket, count);
        }
        for (const [endpoint, requests] of sample.endpoints) this.addEndpoint.run(sample.minute, sample.model, endpoint, requests);
        this.addDay.run(dayOf(sample.minute), sample.model, sample.requests, sample.failures);
      }
    })();
  }

  async totals(period: RollupPeriod, since: number): Promise<ModelTotals[]> {
    return this.sumTotals.all(period, since) as ModelTotals[];
  }

  async latency(period: RollupPeriod, since: number): Promise<LatencyCount[]> {
    return this.sumLatency.all(period, since) as LatencyCount[];
  }

  async latencySeries(period: RollupPeriod, since: number): Promise<LatencyAt[]> {
    return this.latencyByStart.all(period, since) as LatencyAt[];
  }

  async days(since: number): Promise<DayTotals[]> {
    return this.dayRows.all(since) as DayTotals[];
  }

  async endpointTotals(since: number): Promise<EndpointTotals[]> {
    return this.sumEndpoints.all(since) as EndpointTotals[];
  }

  async prune(cuts: PruneCuts): Promise<void> {
    this.db.transaction(() => {
      for (const [period, before] of [
        ['minute', cuts.minutes],
        ['hour', cuts.hours],
      ] as const) {
        this.pruneRollups.run(period, before);
        this.pruneLatency.run(period, before);
      }
      this.pruneEndpoints.run(cuts.minutes);
      this.pruneDays.run(cuts.days);
      this.pruneAttempts.run(cuts.attempts);
    })();
  }

  async addAttempts(counts: readonly AttemptCount[]): Promise<void> {
    this.db.transaction(() => {
      for (const count of counts) this.addAttempt.run(count.model, count.slot, count.attempts, count.errors);
    })();
  }

  async attemptTotals(since: number): Promise<AttemptTotals[]> {
    return this.sumAttempts.all(since) as AttemptTotals[];
  }

  async createIncident(input: NewIncident): Promise<IncidentRecord> {
    const id = this.insert(input, null);
    if (!id) throw new Error('an incident without a watched model cannot conflict');
    return this.mustGet(id);
  }

  async openAutomaticIncident(model: string, input: NewIncident): Promise<IncidentRecord | undefined> {
    const id = this.insert({ ...input, automatic: true }, model);
    return id ? this.mustGet(id) : undefined;
  }

  /** The incident and its first update in one transaction; its id, or null when an open one of the watch's for the model won. */
  private insert(input: NewIncident, watchModel: string | null): string | null {
    const id = `inc_${randomToken(16)}`;
    return this.db
      .transaction((): string | null => {
        const inserted = this.insertIncident.run({
          id,
          title: input.title,
          status: input.status,
          impact: input.impact,
          models: JSON.stringify(input.models),
          automatic: input.automatic ? 1 : 0,
          watchModel,
          now: input.now,
          resolvedAt: input.status === 'resolved' ? input.now : null,
        });
        if (inserted.changes === 0) return null;
        this.insertUpdate.run(id, 1, input.now, input.status, input.message);
        return id;
      })
      .immediate();
  }

  async updateIncident(id: string, patch: IncidentPatch): Promise<IncidentRecord | undefined> {
    // IMMEDIATE: the row is read under the write lock, so a concurrent update (another process
    // on the file) is neither lost nor given the same sequence number.
    const found = this.db
      .transaction((): boolean => {
        const current = this.byId.get(id) as IncidentRow | undefined;
        if (!current) return false;
        const next = patchIncident(current, patch);
        if (!next) return false;
        this.updateIncidentRow.run(next.title, next.status, next.impact, next.models, next.resolvedAt, next.watchModel, patch.now, id);
        if (next.update) this.insertUpdate.run(id, this.nextSeq.get(id), patch.now, next.update.status, next.update.message);
        return true;
      })
      .immediate();
    return found ? this.getIncident(id) : undefined;
  }

  async getIncident(id: string): Promise<IncidentRecord | undefined> {
    const row = this.byId.get(id) as IncidentRow | undefined;
    return row ? this.toIncident(row) : undefined;
  }

  async listIncidents(since: number): Promise<IncidentRecord[]> {
    return (this.recent.all(since) as IncidentRow[]).map((row) => this.toIncident(row));
  }

  async openAutomaticIncidents(): Promise<IncidentRecord[]> {
    return (this.openAutomatic.all() as IncidentRow[]).map((row) => this.toIncident(row));
  }

  async lastAutomaticResolve(model: string): Promise<number | undefined> {
    return this.lastResolve.get(model) as number | undefined;
  }

  private toIncident(row: IncidentRow): IncidentRecord {
    return toIncident(row, this.updatesOf.all(row.id) as IncidentUpdate[]);
  }

  private async mustGet(id: string): Promise<IncidentRecord> {
    const incident = await this.getIncident(id);
    if (!incident) throw new Error(`incident ${id} vanished`);
    return incident;
  }
}
