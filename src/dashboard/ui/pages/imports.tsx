import { ErrorNote } from '../components/error-note.js';
import { useEffect, useState } from 'preact/hooks';
import { admin, ApiError } from '../api.js';
import { tokens, usd, when } from '../format.js';
import type { ImportView, UsageView } from '../types.js';

/** What a pasted key is, by prefix, before anything is sent (the server decides again). */
const KINDS: Array<[string, string]> = [
  ['qua-', 'a key of another gateway'],
  ['sk-', 'a key of an upstream model vendor'],
  ['or-', 'a key of a routing aggregator'],
];
const describeKey = (value: string): string | null => KINDS.find(([prefix]) => value.trim().startsWith(prefix))?.[1] ?? null;

function ImportForm({ connectors, onDone }: { connectors: string[]; onDone: () => void }) {
  const [key, setKey] = useState('');
  const [label, setLabel] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [fetchLive, setFetchLive] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const kind = describeKey(key);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const history = file ? { format: file.name.toLowerCase().endsWith('.json') ? 'json' : 'csv', content: await file.text() } : undefined;
      await admin('POST', '/imports', {
        key: key.trim(),
        ...(label.trim() ? { label: label.trim() } : {}),
        ...(history ? { history } : {}),
        ...(fetchLive && !history ? { fetch: true } : {}),
      });
      setKey('');
      setLabel('');
      setFile(null);
      (event.target as HTMLFormElement).reset();
      onDone();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack card" onSubmit={(event) => void submit(event)}>
      <h2>Import a key</h2>
      <label>
        Key (qua-, sk- or or-)
        <input
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          aria-describedby="key-kind"
        />
      </label>
      <p id="key-kind" class="muted" aria-live="polite">
        {key.trim() === ''
          ? 'Only a fingerprint and the last 4 characters are stored.'
          : kind
            ? `This is ${kind}.`
            : 'Not an importable key: it must start with qua-, sk- or or-.'}
      </p>
      <label>
        Label (optional)
        <input maxLength={200} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
      </label>
      <label>
        Usage history export (CSV or JSON: date, model, input tokens, output tokens, cost)
        <input type="file" accept=".csv,.json,text/csv,application/json" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
      </label>
      {connectors.length > 0 && (
        <label class="inline">
          <input type="checkbox" checked={fetchLive} onChange={(e) => setFetchLive(e.currentTarget.checked)} />
          Fetch the history live instead (available for: {connectors.join(', ')} keys)
        </label>
      )}
      <ErrorNote message={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !kind}>
          Import
        </button>
      </div>
    </form>
  );
}

function ImportCard({ item, nativeOutputTokens }: { item: ImportView; nativeOutputTokens: number | null }) {
  const p = item.projection;
  return (
    <article class="card import" data-import-id={item.id} aria-labelledby={`imp-${item.id}`}>
      <h3 id={`imp-${item.id}`}>
        {item.label} <span class="muted mono">{item.key}</span>
      </h3>
      <p class="muted">
        Key of {item.kind_description} · fingerprint <span class="mono">{item.fingerprint}</span> · imported {when(item.created_at)}
      </p>
      <dl class="figures">
        <div>
          <dt>Projected monthly savings here</dt>
          <dd class="big" data-testid="monthly-savings">
            {usd(p.monthly_savings_usd)}
          </dd>
        </div>
        <div>
          <dt>History</dt>
          <dd>
            {item.history.rows} rows, {item.history.from ?? '—'} to {item.history.to ?? '—'} ({item.history.days} days)
          </dd>
        </div>
        <div>
          <dt>Output tokens: imported · native (30 days, all keys)</dt>
          <dd>
            {tokens(p.output_tokens)} · {nativeOutputTokens === null ? '—' : tokens(nativeOutputTokens)}
          </dd>
        </div>
        <div>
          <dt>Paid there · at list price · charged here</dt>
          <dd>
            {usd(p.paid_elsewhere_usd)} · {usd(p.list_cost_usd)} · {usd(p.charged_cost_usd)}
          </dd>
        </div>
      </dl>
      {p.per_model.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Savings per model over the history</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Output tokens</th>
                <th scope="col">List</th>
                <th scope="col">Charged here</th>
                <th scope="col">Savings</th>
              </tr>
            </thead>
            <tbody>
              {p.per_model.map((m) => (
                <tr key={m.model}>
                  <td class="mono">{m.model}</td>
                  <td>{tokens(m.output_tokens)}</td>
                  <td>{usd(m.list_cost_usd)}</td>
                  <td>{usd(m.charged_cost_usd)}</td>
                  <td>{usd(m.savings_usd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {item.history.unknown_models.length > 0 && (
        <p class="note">
          Not in this gateway's catalogue, left out of the projection: <span class="mono unknown-models">{item.history.unknown_models.join(', ')}</span>
        </p>
      )}
      <details>
        <summary>Assumptions</summary>
        <ul>
          {p.assumptions.map((a) => (
            <li key={a}>{a}</li>
          ))}
        </ul>
      </details>
    </article>
  );
}

export function ImportsPage() {
  const [items, setItems] = useState<ImportView[] | null>(null);
  const [connectors, setConnectors] = useState<string[]>([]);
  const [native, setNative] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    try {
      const list = await admin<{ data: ImportView[]; connectors?: string[] }>('GET', '/imports');
      setItems(list.data);
      setConnectors(list.connectors ?? []);
      const usage = await admin<UsageView>('GET', '/usage').catch(() => null);
      setNative(usage ? usage.totals.completion_tokens : null);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => void load(), []);
  return (
    <section aria-labelledby="imports-title">
      <h1 id="imports-title">Imported keys</h1>
      <p>
        Paste a key of another gateway, a vendor or an aggregator to mirror its usage and see what the same traffic would cost here. Imported keys never work as
        API keys of this gateway.
      </p>
      <ImportForm connectors={connectors} onDone={() => void load()} />
      <ErrorNote message={error} />
      {items?.map((item) => (
        <ImportCard key={item.id} item={item} nativeOutputTokens={native} />
      ))}
    </section>
  );
}
