/** The status plugin's rows as both backends read them, and what both compute from them. */
import type { IncidentImpact, IncidentPatch, IncidentRecord, IncidentStatus, IncidentUpdate, StatusSample } from './status.js';

export interface IncidentRow {
  id: string;
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  /** JSON array of canonical IDs; [] = the whole gateway. */
  models: string;
  /** SQLite keeps 0/1, PostgreSQL a boolean. */
  automatic: number | boolean;
  /** The model the error-rate watch opened it for; at most one open per model (a unique index). */
  watch_model: string | null;
  started_at: number;
  resolved_at: number | null;
  updated_at: number;
}

export const toIncident = (row: IncidentRow, updates: IncidentUpdate[]): IncidentRecord => ({
  id: row.id,
  title: row.title,
  status: row.status,
  impact: row.impact,
  models: JSON.parse(row.models) as string[],
  automatic: Boolean(row.automatic),
  startedAt: row.started_at,
  resolvedAt: row.resolved_at,
  updatedAt: row.updated_at,
  updates,
});

/** An incident row after a patch, and the timeline entry the patch adds (if any). */
export interface PatchedIncident {
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  models: string;
  resolvedAt: number | null;
  watchModel: string | null;
  update: { status: IncidentStatus; message: string } | null;
}

/** The incident after `patch`, or null when the patch is only for open incidents and this one is resolved. */
export function patchIncident(current: IncidentRow, patch: IncidentPatch): PatchedIncident | null {
  if (patch.ifOpen && current.resolved_at !== null) return null;
  const status = patch.status ?? current.status;
  const reopened = current.resolved_at !== null && status !== 'resolved';
  return {
    title: patch.title ?? current.title,
    status,
    impact: patch.impact ?? current.impact,
    models: patch.models ? JSON.stringify(patch.models) : current.models,
    // Resolving stamps the time once; reopening clears it.
    resolvedAt: status === 'resolved' ? (current.resolved_at ?? patch.now) : null,
    // Reopened by hand, it is the operator's: the watch may open its own for the model.
    watchModel: reopened ? null : current.watch_model,
    update: patch.message !== undefined || patch.status !== undefined ? { status, message: patch.message ?? `Status changed to ${status}.` } : null,
  };
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The start (00:00 UTC) of the day holding `ms`. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

/** The rollups a sample is added into: its minute and its hour. */
export const rollupsOf = (sample: StatusSample): ReadonlyArray<readonly ['minute' | 'hour', number]> => [
  ['minute', sample.minute],
  ['hour', Math.floor(sample.minute / HOUR_MS) * HOUR_MS],
];
