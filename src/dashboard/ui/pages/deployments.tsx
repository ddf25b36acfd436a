import { ErrorNote } from '../components/error-note.js';
import { useEffect, useState } from 'preact/hooks';
import { admin } from '../api.js';
import { when } from '../format.js';
import type { DeploymentView } from '../types.js';

/** A limit and what the current minute took of it, or a dash when there is none. */
const used = (taken: number, limit: number | null): string => (limit === null ? '—' : `${taken} / ${limit}`);

export function DeploymentsPage() {
  const [deployments, setDeployments] = useState<DeploymentView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    admin<{ data: DeploymentView[] }>('GET', '/deployments').then(
      (r) => setDeployments(r.data),
      (e: unknown) => setError((e as Error).message),
    );
  }, []);
  return (
    <section aria-labelledby="deployments-title">
      <h1 id="deployments-title">Upstream deployments</h1>
      <p class="muted">Each family's deployments in config order, with their health shared by every instance. Credentials are never shown.</p>
      <ErrorNote message={error} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Family</th>
              <th scope="col">Name</th>
              <th scope="col">Base URL</th>
              <th scope="col">Weight</th>
              <th scope="col">Models</th>
              <th scope="col">Requests this minute</th>
              <th scope="col">Tokens this minute</th>
              <th scope="col">Recent failures</th>
              <th scope="col">Cooled down until</th>
            </tr>
          </thead>
          <tbody>
            {deployments?.map((d) => (
              <tr key={`${d.family}/${d.name}`}>
                <td>{d.family}</td>
                <td class="mono small">{d.name}</td>
                <td class="mono small">{d.base_url}</td>
                <td>{d.weight}</td>
                <td class="small">{d.models?.join(', ') ?? 'all'}</td>
                <td>{used(d.health.minute_requests, d.rpm)}</td>
                <td>{used(d.health.minute_tokens, d.tpm)}</td>
                <td>{d.health.recent_failures}</td>
                <td class="small">{d.health.cooled_until ? when(d.health.cooled_until) : 'healthy'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
