import type { Deployment } from '../upstreams/deployments.js';
import type { DeploymentHealthRow, UpstreamHealth } from '../upstreams/health.js';

/** What `GET /admin/v1/deployments` reads: the deployments in force and their shared health. */
export interface DeploymentsView {
  list(): readonly Deployment[];
  health: Pick<UpstreamHealth, 'snapshot'>;
}

/** One deployment as the admin API lists it: its settings and health, never its credential. */
export interface DeploymentJson {
  family: string;
  name: string;
  base_url: string;
  weight: number;
  rpm: number | null;
  tpm: number | null;
  models: string[] | null;
  /** Whether a credential is configured (never the credential). */
  has_credential: boolean;
  health: { recent_failures: number; cooled_until: string | null; minute_requests: number; minute_tokens: number };
}

/** The list body of `GET /admin/v1/deployments`, every family's deployments in config order. */
export async function deploymentsJson(view: DeploymentsView, now: number): Promise<{ object: 'list'; data: DeploymentJson[] }> {
  const rows = new Map<string, DeploymentHealthRow>((await view.health.snapshot(now)).map((row) => [`${row.family}/${row.deployment}`, row]));
  const data = view.list().map((d) => {
    const row = rows.get(`${d.family}/${d.name}`);
    return {
      family: d.family,
      name: d.name,
      base_url: d.baseUrl,
      weight: d.weight,
      rpm: d.limits?.rpm ?? null,
      tpm: d.limits?.tpm ?? null,
      models: d.models ? [...d.models] : null,
      has_credential: d.apiKey !== undefined,
      health: {
        recent_failures: row?.recentFailures ?? 0,
        cooled_until: row?.cooledUntil ? new Date(row.cooledUntil).toISOString() : null,
        minute_requests: row?.minuteRequests ?? 0,
        minute_tokens: row?.minuteTokens ?? 0,
      },
    };
  });
  return { object: 'list', data };
}
