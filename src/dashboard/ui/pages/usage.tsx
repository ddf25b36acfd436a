import { ErrorNote } from '../components/error-note.js';
import { useEffect, useState } from 'preact/hooks';
import { admin } from '../api.js';
import { BarChart } from '../components/bar-chart.js';
import { approx, hitRate, tokens, usd } from '../format.js';
import type { KeyView, UsageDay, UsageView } from '../types.js';

type Metric = 'cost' | 'requests' | 'tokens';

/** The last 30 days, oldest first, so the chart has a bar for quiet days too. */
function lastDays(days: number, end: Date): string[] {
  return Array.from({ length: days }, (_, i) => new Date(end.getTime() - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** Sums decimal-string dollars exactly, in nano-dollar integers. */
function sumUsd(amounts: string[]): string {
  let nanos = 0n;
  for (const amount of amounts) {
    const [whole = '0', fraction = ''] = amount.split('.');
    nanos += BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0').slice(0, 9));
  }
  const whole = nanos / 1_000_000_000n;
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${whole}.${fraction}`;
}

function byDay(rows: UsageDay[], metric: Metric, days: string[]) {
  return days.map((day) => {
    const today = rows.filter((r) => r.date === day);
    if (metric === 'cost') {
      const total = sumUsd(today.map((r) => r.cost_usd));
      return { label: day, value: approx(total), text: usd(total) };
    }
    const n = today.reduce((s, r) => s + (metric === 'requests' ? r.requests : r.total_tokens), 0);
    return { label: day, value: n, text: tokens(n) };
  });
}

function byModel(rows: UsageDay[]) {
  const models = [...new Set(rows.map((r) => r.model))].sort();
  return models.map((model) => {
    const mine = rows.filter((r) => r.model === model);
    return {
      model,
      requests: mine.reduce((s, r) => s + r.requests, 0),
      prompt: mine.reduce((s, r) => s + r.prompt_tokens, 0),
      cached: mine.reduce((s, r) => s + r.cached_tokens, 0),
      cacheWrites: mine.reduce((s, r) => s + r.cache_write_tokens, 0),
      completion: mine.reduce((s, r) => s + r.completion_tokens, 0),
      reasoning: mine.reduce((s, r) => s + r.reasoning_tokens, 0),
      fromCache: mine.reduce((s, r) => s + r.cached_requests, 0),
      charged: sumUsd(mine.map((r) => r.cost_usd)),
      list: sumUsd(mine.map((r) => r.list_cost_usd)),
    };
  });
}

export function UsagePage() {
  const [keys, setKeys] = useState<KeyView[]>([]);
  const [selected, setSelected] = useState<string>('all');
  const [usage, setUsage] = useState<UsageView | null>(null);
  const [metric, setMetric] = useState<Metric>('cost');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    admin<{ data: KeyView[] }>('GET', '/keys').then(
      (r) => setKeys(r.data),
      (e: unknown) => setError((e as Error).message),
    );
  }, []);
  useEffect(() => {
    setUsage(null);
    admin<UsageView>('GET', selected === 'all' ? '/usage' : `/keys/${selected}/usage`).then(setUsage, (e: unknown) => setError((e as Error).message));
  }, [selected]);

  const days = lastDays(30, new Date());
  return (
    <section aria-labelledby="usage-title">
      <div class="title-row">
        <h1 id="usage-title">Usage, last 30 days</h1>
        <label for="usage-key">
          Key
          <select id="usage-key" value={selected} onChange={(e) => setSelected(e.currentTarget.value)}>
            <option value="all">All keys</option>
            {keys.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.key})
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote message={error} />
      {usage && (
        <>
          <dl class="figures">
            <div>
              <dt>Requests</dt>
              <dd data-testid="usage-requests">{tokens(usage.totals.requests)}</dd>
            </div>
            <div>
              <dt>Tokens (prompt · completion)</dt>
              <dd>
                {tokens(usage.totals.prompt_tokens)} · {tokens(usage.totals.completion_tokens)}
              </dd>
            </div>
            <div>
              <dt>Cache hit rate</dt>
              <dd data-testid="usage-cache-hit-rate">{hitRate(usage.totals.cached_tokens, usage.totals.prompt_tokens)}</dd>
            </div>
            <div>
              <dt>Cache writes · reasoning tokens</dt>
              <dd>
                <span data-testid="usage-cache-writes">{tokens(usage.totals.cache_write_tokens)}</span> ·{' '}
                <span data-testid="usage-reasoning">{tokens(usage.totals.reasoning_tokens)}</span>
              </dd>
            </div>
            <div>
              <dt>Answered from the response cache</dt>
              <dd data-testid="usage-cached-requests">{tokens(usage.totals.cached_requests)}</dd>
            </div>
            <div>
              <dt>Charged</dt>
              <dd class="big" data-testid="usage-charged">
                {usd(usage.totals.cost_usd)}
              </dd>
            </div>
            <div>
              <dt>Saved against list price ({usd(usage.totals.list_cost_usd)})</dt>
              <dd class="big savings" data-testid="usage-savings">
                {usd(usage.totals.savings_usd)}
              </dd>
            </div>
            <div>
              <dt>This month</dt>
              <dd>
                {usd(usage.cycle.spent_usd)} spent{usage.cycle.ceiling_usd ? ` of ${usd(usage.cycle.ceiling_usd)}` : ''}
                {approx(usage.cycle.reserved_usd) > 0 ? `, ${usd(usage.cycle.reserved_usd)} held by requests in flight` : ''}
              </dd>
            </div>
          </dl>
          <fieldset class="segmented">
            <legend>Chart</legend>
            {(['cost', 'requests', 'tokens'] as const).map((m) => (
              <label class="inline" key={m}>
                <input type="radio" name="metric" value={m} checked={metric === m} onChange={() => setMetric(m)} />
                {m === 'cost' ? 'Charged cost' : m === 'requests' ? 'Requests' : 'Tokens'}
              </label>
            ))}
          </fieldset>
          <BarChart
            bars={byDay(usage.data, metric, days)}
            title={`${metric === 'cost' ? 'Charged cost' : metric === 'requests' ? 'Requests' : 'Tokens'} per day`}
          />
          <div class="table-wrap">
            <table>
              <caption>Per model</caption>
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Requests</th>
                  <th scope="col">Prompt tokens</th>
                  <th scope="col">Completion tokens</th>
                  <th scope="col">Cache hit rate</th>
                  <th scope="col">Cache writes</th>
                  <th scope="col">Reasoning tokens</th>
                  <th scope="col">From the response cache</th>
                  <th scope="col">Charged</th>
                  <th scope="col">List price</th>
                </tr>
              </thead>
              <tbody>
                {byModel(usage.data).map((m) => (
                  <tr key={m.model} data-model={m.model}>
                    <td class="mono">{m.model}</td>
                    <td>{tokens(m.requests)}</td>
                    <td>{tokens(m.prompt)}</td>
                    <td>{tokens(m.completion)}</td>
                    <td title={`${tokens(m.cached)} of ${tokens(m.prompt)} prompt tokens read from the cache`}>{hitRate(m.cached, m.prompt)}</td>
                    <td>{tokens(m.cacheWrites)}</td>
                    <td>{tokens(m.reasoning)}</td>
                    <td>{tokens(m.fromCache)}</td>
                    <td>{usd(m.charged)}</td>
                    <td>{usd(m.list)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p class="note" id="usage-definitions">
            Cache hit rate: the prompt tokens the vendors read from their prompt caches, over all prompt tokens (cache writes are prompt tokens written to those
            caches). Reasoning tokens are the part of the completion tokens the models spent reasoning, where the vendor says. Answers from the response cache
            are calls the gateway answered with an earlier answer, at no cost.
          </p>
        </>
      )}
    </section>
  );
}
