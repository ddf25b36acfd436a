import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import { startHarness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/**
 * Adding a vendor is a plugin folder, catalogue entries and a YAML line. A throwaway fourth
 * family, `zeta` (an OpenAI-style upstream), lives in test/fixtures/plugins/vendor-zeta; this
 * test adds it to copies of the shipped config and catalogue and serves it end to end. Nothing
 * under src/ names it.
 */

const ZETA_KEY = 'zeta-upstream-secret-key';

t.test('a fourth family, registered by its plugin alone, is served end to end', async (t) => {
  const mentions = spawnSync('git', ['grep', '-ilw', 'zeta', '--', 'src'], { encoding: 'utf8' });
  t.same([mentions.status, mentions.stdout], [1, ''], 'no file under src/ mentions the zeta family');

  const dir = mkdtempSync(join(tmpdir(), 'gateway-fourth-family-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const catalogue = `${readFileSync('config/models.yaml', 'utf8').replace('families:\n', 'families:\n  zeta:\n    owned_by: vendor-z\n')}
  - id: zeta-1
    family: zeta
    upstream: zeta-large-2026
    created: 1780000000
    price: { output: { list: "2.00", charged: "1.00" }, input: { list: "0.40", charged: "0" } }
    capabilities: [tools]
    max_output_tokens: 4096
    aliases: [zeta-one]
`;
  writeFileSync(join(dir, 'models.yaml'), catalogue);
  const yaml = readFileSync('config/gateway.yaml', 'utf8').replace(
    '  - name: vendor-gamma\n',
    `  - name: vendor-gamma\n  - name: vendor-zeta\n    path: ${resolve('test/fixtures/plugins/vendor-zeta')}\n`,
  );
  writeFileSync(join(dir, 'gateway.yaml'), yaml);

  const upstream = createGammaSimulator({ apiKey: ZETA_KEY });
  await upstream.listen();
  t.teardown(() => upstream.close());
  const h = await startHarness(t, { configFile: join(dir, 'gateway.yaml'), env: { ZETA_BASE_URL: upstream.url, ZETA_API_KEY: ZETA_KEY } });

  const models = (await (await fetch(`${h.baseURL}/models`)).json()) as { data: Array<{ id: string; family: string; owned_by: string }> };
  t.match(
    models.data.find((m) => m.id === 'zeta-1'),
    { family: 'zeta', owned_by: 'vendor-z' },
    'listed with its family',
  );

  const { id, key } = await h.createKey({ models: ['zeta-one', 'gamma-5.4'], monthly_ceiling_usd: '1.00' });
  const client = h.client(key);
  const reply = await client.chat.completions.create({ model: 'zeta-one', messages: [{ role: 'user', content: 'Hello zeta [[sim:tokens=3]]' }] });
  t.equal(reply.model, 'zeta-1', 'the alias resolves to the canonical ID');
  t.equal(reply.usage?.completion_tokens, 3);
  const asked = upstream.requests.at(-1);
  t.equal(JSON.parse(asked?.body ?? '{}').model, 'zeta-large-2026', 'the upstream is asked for its own model name');
  t.equal(asked?.headers.authorization, `Bearer ${ZETA_KEY}`, "with the family's own credential");

  const stream = await client.chat.completions.create({ model: 'zeta-1', stream: true, messages: [{ role: 'user', content: 'Stream [[sim:tokens=4]]' }] });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  t.ok(text.length > 0, 'streamed');

  const rows = openLedgerDb(h.dbPath).rows(id);
  t.same(
    rows.map((r) => [r.model, r.family, r.completion_tokens, r.charged_nano]),
    [
      ['zeta-1', 'zeta', 3, 3000],
      ['zeta-1', 'zeta', 4, 4000],
    ],
    'billed by the ledger at its catalogue price, family named',
  );
  const forbidden = await client.chat.completions
    .create({ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => (e as { status: number }).status);
  t.equal(forbidden, 403, 'the allowlist applies as to any family');
  const status = (await (await fetch(`${h.origin}/status.json`)).json()) as { models: Array<{ id: string; family: string }> };
  t.match(
    status.models.find((m) => m.id === 'zeta-1'),
    { family: 'zeta' },
    'and the status page shows it',
  );
});
