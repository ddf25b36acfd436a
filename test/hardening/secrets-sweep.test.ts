import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createAlphaSimulator } from '../../plugins/vendor-alpha/simulator.js';
import { createBetaSimulator } from '../../plugins/vendor-beta/simulator.js';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import { AggregatorUsageSimulator } from '../../src/simulators/aggregator-usage-sim.js';
import type { SimServer } from '../../src/simulators/sim-server.js';
import { compiledGateway } from '../helpers/compiled-gateway.js';
import { configFileWith } from '../helpers/config-file.js';
import { spawnGateway } from '../helpers/spawn-gateway.js';
import { findLeaks, randomToken, type Artifact } from './helpers/secrets.js';

/**
 * One run that uses every kind of secret the gateway handles (the admin token, sl- keys live,
 * rotated and revoked, imported qua-/sk-/or- keys, each family's upstream credential, the
 * metrics token) on every endpoint at LOG_LEVEL=debug, then searches all the gateway wrote or
 * answered — its output, every answer's status, headers and body (/metrics among them), and the
 * SQLite file with its WAL and shared memory, while running and after a clean stop — for any
 * 8-character piece of any of them. Only a create or rotate answer may show the key it mints.
 */

const FAMILIES = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' } as const;
type Family = keyof typeof FAMILIES;

interface Answer {
  status: number;
  body: Record<string, any>;
}

t.test('secrets sweep: no piece of a secret in any log line, answer, metric or database file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-secrets-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const upstream: Record<Family, string> = { alpha: randomToken(32), beta: randomToken(32), gamma: randomToken(32) };
  const secrets: Record<string, string> = {
    admin: `adm_${randomToken(36)}`,
    metrics: randomToken(32),
    qua: `qua-${randomToken(24)}`,
    sk: `sk-${randomToken(24)}`,
    or: `or-${randomToken(24)}`,
    ...Object.fromEntries(Object.entries(upstream).map(([family, key]) => [`${family} upstream`, key])),
  };
  const sims: Record<Family, SimServer> = {
    alpha: createAlphaSimulator({ apiKey: upstream.alpha }),
    beta: createBetaSimulator({ apiKey: upstream.beta }),
    gamma: createGammaSimulator({ apiKey: upstream.gamma }),
  };
  for (const sim of Object.values(sims)) {
    await sim.listen();
    t.teardown(() => sim.close());
  }
  const aggregator = new AggregatorUsageSimulator();
  await aggregator.listen();
  t.teardown(() => aggregator.close());
  aggregator.activity.set(secrets['or'] as string, [{ date: '2026-11-01', model: 'gamma-5.2', prompt_tokens: 10, completion_tokens: 5000, usage: 0.02 }]);

  const db = join(dir, 'gateway.db');
  const gateway = spawnGateway(
    {
      GATEWAY_CONFIG: configFileWith(dir, 'metrics', { token: secrets['metrics'] }),
      GATEWAY_DB: db,
      GATEWAY_ADMIN_TOKEN: secrets['admin'] as string,
      LOG_LEVEL: 'debug',
      IMPORT_AGGREGATOR_BASE_URL: aggregator.url,
      ...Object.fromEntries(
        (Object.keys(sims) as Family[]).flatMap((family) => [
          [`${family.toUpperCase()}_BASE_URL`, sims[family].url],
          [`${family.toUpperCase()}_API_KEY`, upstream[family]],
        ]),
      ),
    },
    await compiledGateway(),
  );
  t.teardown(() => gateway.kill('SIGKILL'));
  const origin = await gateway.ready;

  const artifacts: Artifact[] = [];
  /** One request; its status, headers and body kept for the search. */
  const ask = async (label: string, method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    artifacts.push({ label, text: `${res.status}\n${[...res.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n${text}` });
    let parsed: Record<string, any> = {};
    try {
      parsed = JSON.parse(text) as Record<string, any>;
    } catch {
      // a stream, a page, metrics text
    }
    return { status: res.status, body: parsed };
  };
  const admin = (label: string, method: string, path: string, body?: unknown): Promise<Answer> =>
    ask(`admin ${label}`, method, `/admin/v1${path}`, secrets['admin'], body);
  /** A create or rotate answer: it shows the key it mints, and only that one. */
  const minted = async (answer: Promise<Answer>, name: string): Promise<Answer & { key: string; id: string }> => {
    const { status, body } = await answer;
    const key = String(body['key']);
    (artifacts.at(-1) as Artifact).shows = [key];
    secrets[name] = key;
    return { status, body, key, id: String(body['id']) };
  };

  // Keys: live, rotated (the old value in its grace and the new one), revoked.
  const live = await minted(admin('create', 'POST', '/keys', { name: 'live', monthly_ceiling_usd: '50.00' }), 'sl live');
  const rotating = await minted(admin('create', 'POST', '/keys', { name: 'rotating' }), 'sl rotated (old)');
  const rotated = await minted(admin('rotate', 'POST', `/keys/${rotating.id}/rotate`), 'sl rotated (new)');
  t.equal(rotated.status, 200, 'rotated');
  const revoked = await minted(admin('create', 'POST', '/keys', { name: 'revoked' }), 'sl revoked');
  await admin('revoke', 'POST', `/keys/${revoked.id}/revoke`);
  t.ok(findLeaks(secrets, [{ label: 'self-test', text: JSON.stringify(live.body) }]).length > 0, 'the search finds a minted key where it is shown');
  for (const [path, method, body] of [
    ['/keys', 'GET'],
    [`/keys/${live.id}`, 'GET'],
    [`/keys/${live.id}`, 'PATCH', { name: 'live!' }],
    [`/keys/${rotating.id}`, 'GET'],
    ['/usage', 'GET'],
    ['/usage/keys', 'GET'],
  ] as const) {
    await admin(path, method, path, body);
  }

  // Imported keys: an upload of each format, a live fetch, a removal.
  const csv = 'date,model,input_tokens,output_tokens,cost\n2026-11-01,gamma-5.4,10,100,0.01\n';
  const qua = await admin('import qua', 'POST', '/imports', { key: secrets['qua'], label: 'old gateway', history: { format: 'csv', content: csv } });
  const sk = await admin('import sk', 'POST', '/imports', {
    key: secrets['sk'],
    history: { format: 'json', content: '[{"date":"2026-11-02","model":"alpha-sonnet-4.6","input_tokens":1,"output_tokens":2,"cost":"0.01"}]' },
  });
  const or = await admin('import or (live fetch)', 'POST', '/imports', { key: secrets['or'], fetch: true });
  t.same([qua.status, sk.status, or.status], [201, 201, 201], 'imported');
  t.same(aggregator.seenKeys, [secrets['or']], 'the or- key reached its aggregator once');
  await admin('imports', 'GET', '/imports');
  for (const imported of [qua, sk, or]) await admin('import', 'GET', `/imports/${String(imported.body['id'])}`);
  await admin('delete import', 'DELETE', `/imports/${String(sk.body['id'])}`);
  const incident = await admin('incident', 'POST', '/incidents', { title: 'slow', models: ['gamma-5.4'] });
  await admin('incident', 'PATCH', `/incidents/${String(incident.body['id'])}`, { status: 'resolved' });
  await admin('audit', 'GET', '/audit?limit=1000');

  // Refused credentials, in every place a caller might put them.
  const wrongAdmin = `${(secrets['admin'] as string).slice(0, -1)}X`;
  for (const [label, token] of [
    ['wrong admin token', wrongAdmin],
    ['sl- key as admin token', live.key],
    ['no token', undefined],
  ] as const)
    await ask(label, 'GET', '/admin/v1/keys', token);
  const chat = (model: string, stream = false, content = 'Hi [[sim:tokens=3]]'): Record<string, unknown> => ({
    model,
    stream,
    messages: [{ role: 'user', content }],
  });
  for (const [label, token] of [
    ['revoked', revoked.key],
    ['qua', secrets['qua']],
    ['sk', secrets['sk']],
    ['or', secrets['or']],
    ['admin', secrets['admin']],
    ['metrics', secrets['metrics']],
  ] as const) {
    t.equal((await ask(`${label} as a key`, 'POST', '/v1/chat/completions', token, chat('gamma-5.4'))).status, 401, `${label}: 401`);
  }
  await ask('key in x-api-key', 'POST', '/v1/chat/completions', undefined, chat('gamma-5.4'), { 'x-api-key': live.key });
  await ask('key in the query', 'POST', `/v1/chat/completions?api_key=${live.key}`, live.key, chat('gamma-5.4'));

  // Every endpoint with the live, rotated and new keys; every family, plain and streamed.
  for (const token of [live.key, rotating.key, rotated.key]) {
    for (const [family, model] of Object.entries(FAMILIES)) {
      for (const stream of [false, true])
        t.equal((await ask(`${family} chat`, 'POST', '/v1/chat/completions', token, chat(model, stream))).status, 200, `${family} chat`);
      const credentialEcho = `key ${upstream[family as Family]} rejected`;
      sims[family as Family].faults.push(
        { status: 400, message: credentialEcho },
        { errorAfterFrames: 2, message: credentialEcho },
        { status: 401, message: credentialEcho },
      );
      await ask(`${family} error echoing its credential`, 'POST', '/v1/chat/completions', token, chat(model));
      await ask(`${family} stream error echoing its credential`, 'POST', '/v1/chat/completions', token, chat(model, true));
      await ask(`${family} refusing its credential`, 'POST', '/v1/chat/completions', token, chat(model));
    }
    await ask('completions', 'POST', '/v1/completions', token, { model: 'alpha-sonnet-4.6', prompt: 'Once', max_tokens: 3 });
    await ask('embeddings', 'POST', '/v1/embeddings', token, { model: 'beta-3-flash', input: ['a', 'b'] });
    await ask('usage', 'GET', '/v1/usage', token);
  }
  await admin('usage of the live key', 'GET', `/keys/${live.id}/usage`);
  for (const path of ['/v1/models', '/v1/models/gamma-5.4', '/healthz', '/readyz', '/status', '/status.json']) await ask(path, 'GET', path);
  t.equal((await ask('metrics', 'GET', '/metrics', secrets['metrics'])).status, 200, 'metrics with their token');
  await ask('metrics without a token', 'GET', '/metrics');
  await ask('metrics with a wrong token', 'GET', '/metrics', `${(secrets['metrics'] as string).slice(0, -1)}X`);

  const files = (): Artifact[] =>
    ['', '-wal', '-shm']
      .filter((suffix) => existsSync(db + suffix))
      .map((suffix) => ({ label: `gateway.db${suffix}`, text: readFileSync(db + suffix).toString('latin1') }));
  const whileRunning = files();
  t.ok(
    whileRunning.some((file) => file.label.endsWith('-wal') && file.text.length > 0),
    'the WAL is searched while it holds the recent writes',
  );
  gateway.kill('SIGTERM');
  t.equal(await gateway.exited, 0, 'clean stop');
  const output = gateway.output();
  t.ok(output.split('\n').filter(Boolean).length > 100, 'the log has a line per request');
  const leaks = findLeaks(secrets, [...artifacts, ...whileRunning, ...files(), { label: 'gateway output', text: output }]);
  t.same(leaks, [], `${Object.keys(secrets).length} secrets, ${artifacts.length} answers, the log and the database files: no piece of a secret`);
  t.comment(`secrets: ${Object.keys(secrets).join(', ')}; ${artifacts.length} answers searched`);
});
