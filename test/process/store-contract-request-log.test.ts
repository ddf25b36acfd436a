import { REQUEST_LOG_STATE } from '../../plugins/request-log/store/state.js';
import { ID_PREFIX, type RequestLogStore, type RequestQuery, type RequestRecord } from '../../plugins/request-log/store/log-store.js';
import { logRecord } from '../helpers/request-records.js';
import { contract } from '../helpers/store-backends.js';

/**
 * The store contract for the request log (plugins/request-log/store/): a record kept whole,
 * newest first, filtered by key, model, endpoint, status (a code or a class) and time, paged by
 * cursor through 100,000 records with no record twice or missed; pruned by age and by count —
 * on SQLite and PostgreSQL, one instance's records read by another.
 */

const T0 = Date.parse('2026-11-01T00:00:00Z');
const ROWS = 100_000;
const KEYS = ['key_a', 'key_b', 'key_c', 'key_d'];
const MODELS = ['gamma-5.4', 'alpha-sonnet-4.5', 'beta-2.5-pro'];
const STATUSES = [200, 200, 200, 429, 502];

function record(i: number, at: number): RequestRecord {
  return logRecord(at, {
    keyId: KEYS[i % KEYS.length] as string,
    model: MODELS[i % MODELS.length] as string,
    endpoint: i % 2 === 0 ? 'chat.completions' : 'messages',
    stream: i % 3 === 0,
    deployment: i % 7 === 0 ? null : 'default',
    status: STATUSES[i % STATUSES.length] as number,
    latencyMs: 12.5,
    ttftMs: i % 3 === 0 ? 3.1 : null,
    inputTokens: i,
    outputTokens: 2 * i,
    cacheReadTokens: 1,
    cacheWriteTokens: 2,
    reasoningTokens: 3,
    chargedNanos: 1_000_000_007 + i,
    upstreamNanos: 900_000_003 + i,
    cacheHit: i % 11 === 0,
    traceId: i % 5 === 0 ? '0af7651916cd43dd8448eb211c80319c' : null,
  });
}

/** Every record `query` selects, page after page through the cursor: the ids in the order given. */
async function walk(store: RequestLogStore, query: Omit<RequestQuery, 'limit'>, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pages = 0;
  let before: string | undefined;
  for (;;) {
    const page = await store.list({ ...query, limit, ...(before === undefined ? {} : { before }) });
    pages += 1;
    ids.push(...page.map((r) => r.id));
    if (page.length < limit) return { ids, pages };
    before = page.at(-1)?.id;
  }
}

contract('request log: records kept whole, newest first, filtered and paged by cursor over 100,000, pruned by age and count; shared', async (t, db) => {
  const [a, b] = [await (await db.open()).extend(REQUEST_LOG_STATE), await (await db.open()).extend(REQUEST_LOG_STATE)];
  // One record a second, through the store's own batch write as the plugin's queue uses it.
  const records = Array.from({ length: ROWS }, (_, i) => record(i, T0 + i * 1000));
  const loaded = Date.now();
  for (let start = 0; start < ROWS; start += 1000) await a.append(records.slice(start, start + 1000));
  t.comment(`${ROWS} records appended in ${Date.now() - loaded} ms`);

  const newest = records.at(-1) as RequestRecord;
  t.same(await b.get(newest.id), newest, 'another instance reads a record whole');
  t.equal(await b.get(`${ID_PREFIX}000000000000nope`), null, 'an unknown id is none');
  t.same(
    (await b.list({ limit: 3 })).map((r) => r.id),
    records
      .slice(-3)
      .reverse()
      .map((r) => r.id),
    'newest first',
  );

  const started = Date.now();
  const expect = (keep: (r: RequestRecord) => boolean): string[] =>
    records
      .filter(keep)
      .map((r) => r.id)
      .reverse();
  const keyB = await walk(b, { keyId: 'key_b' }, 500);
  t.equal(keyB.ids.length, ROWS / 4, "one key's records, every one");
  t.same(
    keyB.ids,
    expect((r) => r.keyId === 'key_b'),
    'in order, none twice, none missed',
  );
  const mixed = await walk(b, { model: 'alpha-sonnet-4.5', endpoint: 'messages', status: { classOf: 4 } }, 200);
  t.same(
    mixed.ids,
    expect((r) => r.model === 'alpha-sonnet-4.5' && r.endpoint === 'messages' && r.status >= 400 && r.status < 500),
    'model, endpoint and a status class together',
  );
  t.ok(mixed.ids.length > 1000, `${mixed.ids.length} records in ${mixed.pages} pages`);
  const since = T0 + 10_000 * 1000;
  const until = T0 + 12_000 * 1000;
  const window = await walk(b, { status: { code: 502 }, since, until }, 50);
  t.same(
    window.ids,
    expect((r) => r.status === 502 && r.at >= since && r.at < until),
    'a code within [since, until)',
  );
  t.equal(window.ids.length, 400);
  t.comment(`filtered walks in ${Date.now() - started} ms`);

  // Prune: the age bound first, then all but the newest N.
  t.equal(await a.prune(T0 + 50_000 * 1000, ROWS), 50_000, 'records before the cut-off go');
  t.equal(await a.prune(T0, 1234), 50_000 - 1234, 'then all but the 1,234 newest');
  t.equal(await a.prune(T0, 1000), 234, 'then all but the 1,000 newest');
  const left = await walk(b, {}, 500);
  t.same(
    left.ids,
    expect((r) => r.at >= T0 + 99_000 * 1000),
    'the newest are kept',
  );
  t.equal(await a.prune(T0, 1000), 0, 'nothing more to prune');
});
