import type Database from 'better-sqlite3';
import { randomToken } from '../../keys/key-material.js';
import type {
  IncidentImpact,
  IncidentPatch,
  IncidentRecord,
  IncidentStatus,
  IncidentUpdate,
  LatencyCount,
  ModelTotals,
  NewIncident,
  RollupPeriod,
  StatusSample,
  StatusStore,
} from '../status.js';

type Db = Database.Database;

const HOUR_MS = 3_600_000;

interface IncidentRow {
  id: string;
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  models: string;
  automatic: number;
  started_at: number;
  resolved_at: number | null;
  updated_at: number;
}

/** The status site's rollups and incident log in SQLite (see migration 3). */
export class SqliteStatusStore implements StatusStore {
  private readonly addRollup;
  private readonly addLatency;
  private readonly sumTotals;
  private readonly sumLatency;
  private readonly pruneRollups;
  private readonly pruneLatency;
  private readonly insertIncident;
  private readonly updateIncidentRow;
  private readonly insertUpdate;
  private readonly nextSeq;
  private readonly byId;
  private readonly updatesOf;
  private readonly recent;
  private readonly openAutomatic;

  constructor(private readonly db: Db) {
    this.addRollup = db.prepare(`INSERT INTO status_rollups (period, start, model, requests, failures)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (period, start, model) DO UPDATE SET
        requests = requests + excluded.requests, failures = failures + excluded.failures`);
    this.addLatency = db.prepare(`INSERT INTO status_latency (period, start, model, bucket, count)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (period, start, model, bucket) DO UPDATE SET count = count + excluded.count`);
    this.sumTotals = db.prepare(`SELECT model, SUM(requests) AS requests, SUM(failures) AS failures
      FROM status_rollups WHERE period = ? AND start >= ? GROUP BY model`);
    this.sumLatency = db.prepare(`SELECT model, bucket, SUM(count) AS count
      FROM status_latency WHERE period = ? AND start >= ? GROUP BY model, bucket`);
    this.pruneRollups = db.prepare('DELETE FROM status_rollups WHERE period = ? AND start < ?');
    this.pruneLatency = db.prepare('DELETE FROM status_latency WHERE period = ? AND start < ?');
    this.insertIncident = db.prepare(`INSERT INTO incidents
      (id, title, status, impact, models, automatic, started_at, resolved_at, updated_at)
      VALUES (@id, @title, @status, @impact, @models, @automatic, @now, @resolvedAt, @now)`);
    this.updateIncidentRow = db.prepare(
      'UPDATE incidents SET title = ?, status = ?, impact = ?, models = ?, resolved_at = ?, updated_at = ? WHERE id = ?',
    );
    this.insertUpdate = db.prepare('INSERT INTO incident_updates (incident_id, seq, at, status, message) VALUES (?, ?, ?, ?, ?)');
    this.nextSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 FROM incident_updates WHERE incident_id = ?').pluck();
    this.byId = db.prepare('SELECT * FROM incidents WHERE id = ?');
    this.updatesOf = db.prepare('SELECT at, status, message FROM incident_updates WHERE incident_id = ? ORDER BY seq DESC');
    this.recent = db.prepare(
      'SELECT * FROM incidents WHERE resolved_at IS NULL OR started_at >= ? ORDER BY started_at DESC, rowid DESC',
    );
    this.openAutomatic = db.prepare('SELECT * FROM incidents WHERE automatic = 1 AND resolved_at IS NULL');
  }

  async record(samples: readonly StatusSample[]): Promise<void> {
    this.db.transaction(() => {
      for (const sample of samples) {
        const hour = Math.floor(sample.minute / HOUR_MS) * HOUR_MS;
        for (const [period, start] of [['minute', sample.minute], ['hour', hour]] as const) {
          this.addRollup.run(period, start, sample.model, sample.requests, sample.failures);
          for (const [bucket, count] of sample.latency) this.addLatency.run(period, start, sample.model, bucket, count);
        }
      }
    })();
  }

  async totals(period: RollupPeriod, since: number): Promise<ModelTotals[]> {
    return this.sumTotals.all(period, since) as ModelTotals[];
  }

  async latency(period: RollupPeriod, since: number): Promise<LatencyCount[]> {
    return this.sumLatency.all(period, since) as LatencyCount[];
  }

  async prune(minutesBefore: number, hoursBefore: number): Promise<void> {
    this.db.transaction(() => {
      for (const [period, before] of [['minute', minutesBefore], ['hour', hoursBefore]] as const) {
        this.pruneRollups.run(period, before);
        this.pruneLatency.run(period, before);
      }
    })();
  }

  async createIncident(input: NewIncident): Promise<IncidentRecord> {
    const id = `inc_${randomToken(16)}`;
    this.db.transaction(() => {
      this.insertIncident.run({
        id,
        title: input.title,
        status: input.status,
        impact: input.impact,
        models: JSON.stringify(input.models),
        automatic: input.automatic ? 1 : 0,
        now: input.now,
        resolvedAt: input.status === 'resolved' ? input.now : null,
      });
      this.insertUpdate.run(id, 1, input.now, input.status, input.message);
    })();
    return this.mustGet(id);
  }

  async updateIncident(id: string, patch: IncidentPatch): Promise<IncidentRecord | undefined> {
    const current = this.byId.get(id) as IncidentRow | undefined;
    if (!current) return undefined;
    const status = patch.status ?? current.status;
    // Resolving stamps the time once; reopening clears it.
    const resolvedAt = status === 'resolved' ? (current.resolved_at ?? patch.now) : null;
    this.db.transaction(() => {
      this.updateIncidentRow.run(
        patch.title ?? current.title,
        status,
        patch.impact ?? current.impact,
        patch.models ? JSON.stringify(patch.models) : current.models,
        resolvedAt,
        patch.now,
        id,
      );
      if (patch.message !== undefined || patch.status !== undefined) {
        const message = patch.message ?? `Status changed to ${status}.`;
        this.insertUpdate.run(id, this.nextSeq.get(id) as number, patch.now, status, message);
      }
    })();
    return this.getIncident(id);
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

  private toIncident(row: IncidentRow): IncidentRecord {
    return {
      id: row.id,
      title: row.title,
      status: row.status,
      impact: row.impact,
      models: JSON.parse(row.models) as string[],
      automatic: row.automatic === 1,
      startedAt: row.started_at,
      resolvedAt: row.resolved_at,
      updatedAt: row.updated_at,
      updates: this.updatesOf.all(row.id) as IncidentUpdate[],
    };
  }

  private async mustGet(id: string): Promise<IncidentRecord> {
    const incident = await this.getIncident(id);
    if (!incident) throw new Error(`incident ${id} vanished`);
    return incident;
  }
}
