import { ErrorNote } from '../components/error-note.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { admin } from '../api.js';
import { tokens, usd, when } from '../format.js';
import type { KeyView, RequestPage, RequestView } from '../types.js';

/** The filters the page reads from its URL (`#/requests?key_id=…&status=4xx`), so that a view can be linked. */
const FILTERS = ['key_id', 'model', 'status', 'endpoint'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;
const PAGE_ROWS = 50;
const STATUSES = ['2xx', '4xx', '5xx', '200', '400', '402', '403', '404', '429', '499', '502', '503', '504'];

function filtersFromHash(): Filters {
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const filters: Filters = {};
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

function hashOf(filters: Filters): string {
  const query = new URLSearchParams();
  for (const name of FILTERS) {
    const value = filters[name];
    if (value) query.set(name, value);
  }
  const text = query.toString();
  return text ? `#/requests?${text}` : '#/requests';
}

const ms = (value: number | null): string => (value === null ? '—' : `${value.toLocaleString('en-US')} ms`);

/** Every field of one call, and its trace: linked when the plugin has a trace_url, else its id as text. */
function Detail({ record, onClose }: { record: RequestView; onClose: () => void }) {
  const panel = useRef<HTMLElement>(null);
  // Opened from a row far down the table: brought into view once per call shown.
  useEffect(() => panel.current?.scrollIntoView({ block: 'nearest' }), [record.id]);
  const rows: Array<[string, string]> = [
    ['Id', record.id],
    ['When', record.created_at],
    ['Key', record.key_id],
    ['Model', record.model ?? '—'],
    ['Endpoint', record.endpoint],
    ['Streamed', record.stream ? 'yes' : 'no'],
    ['Deployment', record.deployment ?? '—'],
    ['Status', `${record.status} (${record.outcome})`],
    ['Latency', ms(record.latency_ms)],
    ['Time to first token', ms(record.ttft_ms)],
    ['Input tokens', tokens(record.usage.input_tokens)],
    ['Output tokens', tokens(record.usage.output_tokens)],
    ['Cache read tokens', tokens(record.usage.cache_read_tokens)],
    ['Cache write tokens', tokens(record.usage.cache_write_tokens)],
    ['Reasoning tokens', tokens(record.usage.reasoning_tokens)],
    ['Cost', usd(record.cost_usd)],
    ['Upstream cost', usd(record.upstream_cost_usd)],
    ['Attempts', String(record.attempts)],
    ['Response cache hit', record.cache_hit ? 'yes' : 'no'],
  ];
  return (
    <aside class="card" aria-labelledby="request-detail-title" data-testid="request-detail" ref={panel}>
      <div class="title-row">
        <h2 id="request-detail-title">Call {record.id}</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <dl class="figures">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd class="mono small">{value}</dd>
          </div>
        ))}
        <div>
          <dt>Trace</dt>
          <dd class="mono small">
            {record.trace_id === null ? (
              '— (telemetry off)'
            ) : record.trace_url ? (
              <a href={record.trace_url} rel="noreferrer noopener" target="_blank">
                {record.trace_id}
              </a>
            ) : (
              record.trace_id
            )}
          </dd>
        </div>
      </dl>
    </aside>
  );
}

export function RequestsPage() {
  const [filters, setFilters] = useState<Filters>(filtersFromHash());
  const [draft, setDraft] = useState<Filters>(filters);
  const [keys, setKeys] = useState<KeyView[]>([]);
  /** The cursors of the pages shown before this one: "Newer" goes back one. */
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [page, setPage] = useState<RequestPage | null>(null);
  const [selected, setSelected] = useState<RequestView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const cursor = cursors.at(-1) ?? null;

  useEffect(() => {
    const onHash = (): void => {
      const next = filtersFromHash();
      setFilters(next);
      setDraft(next);
      setCursors([null]);
    };
    window.addEventListener('hashchange', onHash);
    admin<{ data: KeyView[] }>('GET', '/keys').then(
      (r) => setKeys(r.data),
      (e: unknown) => setError((e as Error).message),
    );
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    const query = new URLSearchParams({ ...filters, limit: String(PAGE_ROWS), ...(cursor ? { cursor } : {}) });
    setError(null);
    admin<RequestPage>('GET', `/requests?${query.toString()}`).then(setPage, (e: unknown) => setError((e as Error).message));
  }, [filters, cursor]);

  const open = (id: string): void => {
    admin<RequestView>('GET', `/requests/${encodeURIComponent(id)}`).then(setSelected, (e: unknown) => setError((e as Error).message));
  };
  const edit = (name: keyof Filters) => (e: Event) => setDraft({ ...draft, [name]: (e.currentTarget as HTMLInputElement).value });

  return (
    <section aria-labelledby="requests-title">
      <h1 id="requests-title">Requests</h1>
      <p class="muted">Every call of a known key, newest first: what it asked, how it ended, what it cost. Never a prompt or an answer.</p>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          location.hash = hashOf(draft);
        }}
      >
        <label for="requests-key">
          Key
          <select id="requests-key" value={draft.key_id ?? ''} onChange={edit('key_id')}>
            <option value="">Any key</option>
            {keys.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.id})
              </option>
            ))}
          </select>
        </label>
        <label for="requests-model">
          Model
          <input id="requests-model" value={draft.model ?? ''} onInput={edit('model')} placeholder="any" />
        </label>
        <label for="requests-status">
          Status
          <select id="requests-status" value={draft.status ?? ''} onChange={edit('status')}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label for="requests-endpoint">
          Endpoint
          <input id="requests-endpoint" value={draft.endpoint ?? ''} onInput={edit('endpoint')} placeholder="any" />
        </label>
        <div class="actions">
          <button type="submit" class="primary">
            Filter
          </button>
          <a href="#/requests">Clear</a>
        </div>
      </form>
      <ErrorNote message={error} />
      {selected ? <Detail record={selected} onClose={() => setSelected(null)} /> : null}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Key</th>
              <th scope="col">Model</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Status</th>
              <th scope="col">Latency</th>
              <th scope="col">Tokens in / out</th>
              <th scope="col">Cost</th>
              <th scope="col">
                <span class="visually-hidden">Details</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page?.data.map((r) => (
              <tr key={r.id} data-id={r.id}>
                <td class="small">{when(r.created_at)}</td>
                <td class="mono small">{r.key_id}</td>
                <td class="small">{r.model ?? '—'}</td>
                <td class="mono small">{r.endpoint}</td>
                <td>{r.status}</td>
                <td class="small">{ms(r.latency_ms)}</td>
                <td class="small">
                  {tokens(r.usage.input_tokens)} / {tokens(r.usage.output_tokens)}
                </td>
                <td class="small">{usd(r.cost_usd)}</td>
                <td>
                  <button type="button" class="link" onClick={() => open(r.id)}>
                    Details<span class="visually-hidden"> of {r.id}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page?.data.length === 0 ? <p class="muted">No call matches.</p> : null}
      <div class="actions">
        <button type="button" disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={!page?.next_cursor} onClick={() => page?.next_cursor && setCursors([...cursors, page.next_cursor])}>
          Older
        </button>
      </div>
    </section>
  );
}
