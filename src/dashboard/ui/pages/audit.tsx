import { ErrorNote } from '../components/error-note.js';
import { useEffect, useState } from 'preact/hooks';
import { admin } from '../api.js';
import { when } from '../format.js';
import type { AuditView } from '../types.js';

export function AuditPage() {
  const [entries, setEntries] = useState<AuditView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    admin<{ data: AuditView[] }>('GET', '/audit?limit=500').then(
      (r) => setEntries(r.data),
      (e: unknown) => setError((e as Error).message),
    );
  }, []);
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit trail</h1>
      <p class="muted">Every admin action and every refused admin attempt, newest first. Admins are named by a fingerprint of their token.</p>
      <ErrorNote message={error} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {entries?.map((e) => (
              <tr key={e.id}>
                <td class="small">{when(e.at)}</td>
                <td class="mono small">{e.actor}</td>
                <td class="mono small">{e.action}</td>
                <td>{e.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
