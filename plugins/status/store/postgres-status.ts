import type { Pool } from 'pg';
import type { PostgresHandle } from '../../../src/plugin-api.js';
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

/**
 * Every rollup, endpoint, day and latency row of a batch in one statement (one round trip, atomic). The rows
 * are summed per primary key first — ON CONFLICT may touch a row once per statement, and two
 * minutes of one hour meet in the hour's row — and sorted, so instances writing overlapping
 * rows lock them in the same order.
 */
const RECORD = `WITH rollups AS (
    INSERT INTO status_rollups (period, start, model, requests, failures)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[])
    ON CONFLICT (period, start, model) DO UPDATE SET
      requests = status_rollups.requests + EXCLUDED.requests, failures = status_rollups.failures + EXCLUDED.failures),
  endpoints AS (
    INSERT INTO status_endpoint_minutes (minute, model, endpoint, requests)
    SELECT * FROM unnest($11::bigint[], $12::text[], $13::text[], $14::bigint[])
    ON CONFLICT (minute, model, endpoint) DO UPDATE SET requests = status_endpoint_minutes.requests + EXCLUDED.requests),
  days AS (
    INSERT INTO status_days (day, model, requests, failures)
    SELECT * FROM unnest($15::bigint[], $16::text[], $17::bigint[], $18::bigint[])
    ON CONFLICT (day, model) DO UPDATE SET
      requests = status_days.requests + EXCLUDED.requests, failures = status_days.failures + EXCLUDED.failures)
  INSERT INTO status_latency (period, start, model, bucket, count)
  SELECT * FROM unnest($6::text[], $7::bigint[], $8::text[], $9::integer[], $10::bigint[])
  ON CONFLICT (period, start, model, bucket) DO UPDATE SET count = status_latency.count + EXCLUDED.count`;

const ADD_ATTEMPTS = `INSERT INTO incident_attempts (model, slot, attempts, errors)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[])
  ON CONFLICT (model, slot) DO UPDATE SET
    attempts = incident_attempts.attempts + EXCLUDED.attempts, errors = incident_attempts.errors + EXCLUDED.errors`;

/**
 * The incident and its first update in one statement. An open incident of the watch's for the
 * same model wins (migration 8's unique index): then nothing is inserted and no id comes back.
 */
const INSERT_INCIDENT = `WITH incident AS (
    INSERT INTO incidents (id, title, status, impact, models, automatic, watch_model, started_at, resolved_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $10, $7, $8, $7)
    ON CONFLICT (watch_model) WHERE watch_model IS NOT NULL AND resolved_at IS NULL DO NOTHING
    RETURNING id)
  INSERT INTO incident_updates (incident_id, seq, at, status, message) SELECT id, 1, $7::bigint, $3::text, $9::text FROM incident
  RETURNING incident_id`;

const UPDATES_OF = `SELECT incident_id, at, status, message FROM incident_updates
  WHERE incident_id = ANY($1::text[]) ORDER BY incident_id, seq DESC`;

interface Keyed {
  key: Array<string | number>;
  values: number[];
}

/** Rows summed per primary key, in a fixed order, laid out column by column for unnest(). */
function summedColumns(rows: readonly Keyed[], width: number): unknown[][] {
  const sums = new Map<string, Keyed>();
  for (const row of rows) {
    const id = JSON.stringify(row.key);
    const seen = sums.get(id);
    if (seen) row.values.forEach((value, i) => (seen.values[i] = (seen.values[i] ?? 0) + value));
    else sums.set(id, { key: row.key, values: [...row.values] });
  }
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const [, row] of [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    [...row.key, ...row.values].forEach((value, i) => columns[i]?.push(value));
  }
  return columns;
}

/** The status site's rollups, the incident watch's attempt counts and the incident log in PostgreSQL (migrations 3, 8, 13, 17 and 27). */
export class PgStatusStore implements StatusStore {
  private readonly pool: Pool;
  private readonly transaction: PostgresHandle['transaction'];

  constructor({ pool, transaction }: PostgresHandle) {
    this.pool = pool;
    this.transaction = transaction;
  }

  async record(samples: readonly StatusSample[]): Promise<void> {
    const rollups: Keyed[] = [];
    const latency: Keyed[] = [];
    const endpoints: Keyed[] = [];
    const days: Keyed[] = [];
    for (const sample of samples) {
      days.push({ key: [dayOf(sample.minute), sample.model], values: [sample.requests, sample.failures] });
      for (const [period, start] of rollupsOf(sample)) {
        rollups.push({ key: [period, start, sample.model], values: [sample.requests, sample.failures] });
        for (const [bucket, count] of sample.latency) latency.push({ key: [period, start, sample.model, bucket], values: [count] });
      }
      for (const [endpoint, requests] of sample.endpoints) endpoints.push({ key: [sample.minute, sample.model, endpoint], values: [requests] });
    }
    if (rollups.length === 0) return;
    await this.pool.query(RECORD, [...summedColumns(rollups, 5), ...summedColumns(latency, 5), ...summedColumns(endpoints, 4), ...summedColumns(days, 4)]);
  }

  async totals(period: RollupPeriod, since: number): Promise<ModelTotals[]> {
    const sql = `SELECT model, SUM(requests)::bigint AS requests, SUM(failures)::bigint AS failures
      FROM status_rollups WHERE period = $1 AND start >= $2 GROUP BY model ORDER BY model COLLATE "C"`;
    return (await this.pool.query<ModelTotals>(sql, [period, since])).rows;
  }

  async latency(period: RollupPeriod, since: number): Promise<LatencyCount[]> {
    const sql = `SELECT model, bucket, SUM(count)::bigint AS count
      FROM status_latency WHERE period = $1 AND start >= $2 GROUP BY model, bucket ORDER BY model COLLATE "C", bucket`;
    return (await this.pool.query<LatencyCount>(sql, [period, since])).rows;
  }

  async latencySeries(period: RollupPeriod, since: number): Promise<LatencyAt[]> {
    const sql = `SELECT model, start, bucket, count FROM status_latency WHERE period = $1 AND start >= $2 ORDER BY model COLLATE "C", start, bucket`;
    return (await this.pool.query<LatencyAt>(sql, [period, since])).rows;
  }

  async days(since: number): Promise<DayTotals[]> {
    const sql = `SELECT model, day, requests, failures FROM status_days WHERE day >= $1 ORDER BY model COLLATE "C", day`;
    return (await this.pool.query<DayTotals>(sql, [since])).rows;
  }

  async endpointTotals(since: number): Promise<EndpointTotals[]> {
    const sql = `SELECT model, endpoint, SUM(requests)::bigint AS requests
      FROM status_endpoint_minutes WHERE minute >= $1 GROUP BY model, endpoint ORDER BY model COLLATE "C", endpoint COLLATE "C"`;
    return (await this.pool.query<EndpointTotals>(sql, [since])).rows;
  }

  async prune(cuts: PruneCuts): Promise<void> {
    const old = "(period = 'minute' AND start < $1) OR (period = 'hour' AND start < $2)";
    await this.pool.query(
      `WITH rollups AS (DELETE FROM status_rollups WHERE ${old}), attempts AS (DELETE FROM incident_attempts WHERE slot < $3),
         endpoints AS (DELETE FROM status_endpoint_minutes WHERE minute < $1), days AS (DELETE FROM status_days WHERE day < $4)
       DELETE FROM status_latency WHERE ${old}`,
      [cuts.minutes, cuts.hours, cuts.attempts, cuts.days],
    );
  }

  async addAttempts(counts: readonly AttemptCount[]): Promise<void> {
    if (counts.length === 0) return;
    const [models, slots, attempts, errors] = summedColumns(
      counts.map((c) => ({ key: [c.model, c.slot], values: [c.attempts, c.errors] })),
      4,
    );
    await this.pool.query(ADD_ATTEMPTS, [models, slots, attempts, errors]);
  }

  async attemptTotals(since: number): Promise<AttemptTotals[]> {
    const sql = `SELECT model, SUM(attempts)::bigint AS attempts, SUM(errors)::bigint AS errors
      FROM incident_attempts WHERE slot >= $1 GROUP BY model ORDER BY model COLLATE "C"`;
    return (await this.pool.query<AttemptTotals>(sql, [since])).rows;
  }

  async createIncident(input: NewIncident): Promise<IncidentRecord> {
    const incident = await this.insert(input, null);
    if (!incident) throw new Error('an incident without a watched model cannot conflict');
    return incident;
  }

  openAutomaticIncident(model: string, input: NewIncident): Promise<IncidentRecord | undefined> {
    return this.insert({ ...input, automatic: true }, model);
  }

  private async insert(input: NewIncident, watchModel: string | null): Promise<IncidentRecord | undefined> {
    const id = `inc_${randomToken(16)}`;
    const values = [
      id,
      input.title,
      input.status,
      input.impact,
      JSON.stringify(input.models),
      input.automatic,
      input.now,
      input.status === 'resolved' ? input.now : null,
      input.message,
      watchModel,
    ];
    if ((await this.pool.query(INSERT_INCIDENT, values)).rowCount === 0) return undefined;
    const incident = await this.getIncident(id);
    if (!incident) throw new Error(`incident ${id} vanished`);
    return incident;
  }

  async updateIncident(id: string, patch: IncidentPatch): Promise<IncidentRecord | undefined> {
    // The row is locked before it is read: concurrent updates queue, none is lost, and each
    // reads the sequence numbers the one before it committed.
    const found = await this.transaction(async (client) => {
      const current = (await client.query<IncidentRow>('SELECT * FROM incidents WHERE id = $1 FOR UPDATE', [id])).rows[0];
      if (!current) return false;
      const next = patchIncident(current, patch);
      if (!next) return false;
      await client.query(
        'UPDATE incidents SET title = $1, status = $2, impact = $3, models = $4, resolved_at = $5, watch_model = $6, updated_at = $7 WHERE id = $8',
        [next.title, next.status, next.impact, next.models, next.resolvedAt, next.watchModel, patch.now, id],
      );
      if (next.update) {
        await client.query(
          `INSERT INTO incident_updates (incident_id, seq, at, status, message)
           SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4 FROM incident_updates WHERE incident_id = $1`,
          [id, patch.now, next.update.status, next.update.message],
        );
      }
      return true;
    });
    return found ? this.getIncident(id) : undefined;
  }

  async getIncident(id: string): Promise<IncidentRecord | undefined> {
    return (await this.incidents('SELECT * FROM incidents WHERE id = $1', [id]))[0];
  }

  async listIncidents(since: number): Promise<IncidentRecord[]> {
    return this.incidents('SELECT * FROM incidents WHERE resolved_at IS NULL OR started_at >= $1 ORDER BY started_at DESC, rowid DESC', [since]);
  }

  async openAutomaticIncidents(): Promise<IncidentRecord[]> {
    return this.incidents('SELECT * FROM incidents WHERE automatic AND resolved_at IS NULL ORDER BY rowid', []);
  }

  async lastAutomaticResolve(model: string): Promise<number | undefined> {
    // Migration 17's partial index, newest resolve first: the walk stops at the first naming the model.
    const sql = `SELECT resolved_at FROM incidents
      WHERE automatic AND resolved_at IS NOT NULL AND models::jsonb @> jsonb_build_array($1::text)
      ORDER BY resolved_at DESC LIMIT 1`;
    return (await this.pool.query<{ resolved_at: number }>(sql, [model])).rows[0]?.resolved_at;
  }

  /** Incidents and their timelines in two queries, whatever their number. */
  private async incidents(sql: string, values: unknown[]): Promise<IncidentRecord[]> {
    const rows = (await this.pool.query<IncidentRow>(sql, values)).rows;
    if (rows.length === 0) return [];
    const updates = new Map<string, IncidentUpdate[]>(rows.map((row) => [row.id, []]));
    const result = await this.pool.query<IncidentUpdate & { incident_id: string }>(UPDATES_OF, [rows.map((row) => row.id)]);
    for (const { incident_id, at, status, message } of result.rows) updates.get(incident_id)?.push({ at, status, message });
    return rows.map((row) => toIncident(row, updates.get(row.id) ?? []));
  }
}
