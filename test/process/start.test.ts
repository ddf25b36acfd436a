import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import t from 'tap';
import { spawnGateway } from '../helpers/spawn-gateway.js';

t.test('a fresh start with no env: models answer, the printed key works, once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'gateway.db');

  const first = spawnGateway({ GATEWAY_DB: db });
  t.teardown(() => first.kill('SIGKILL'));
  const origin = await first.ready;
  const models = (await (await fetch(`${origin}/v1/models`)).json()) as { object: string; data: Array<{ id: string; family: string; object: string }> };
  t.equal(models.object, 'list');
  t.equal(models.data.length, 11, 'the 11 canonical models, no key needed');
  t.ok(models.data.every((m) => m.object === 'model' && ['alpha', 'beta', 'gamma'].includes(m.family)));
  const one = (await (await fetch(`${origin}/v1/models/alpha-sonnet-4-6`)).json()) as { id: string };
  t.equal(one.id, 'alpha-sonnet-4.6', 'retrieve resolves aliases');
  const missing = await fetch(`${origin}/v1/models/gamma-5.5`);
  t.equal(missing.status, 404);
  t.equal(((await missing.json()) as { error: { code: string } }).error.code, 'model_not_found');

  // Give the banner a moment to follow the listening line.
  for (let i = 0; i < 50 && !first.output().includes('First API key'); i++) await new Promise((r) => setTimeout(r, 20));
  const output = first.output();
  t.match(output, /SIMULATOR: no GAMMA_API_KEY is set/, 'the simulator is announced loudly');
  const key = /First API key:\s+(sl-[A-Za-z0-9]{32})/.exec(output)?.[1];
  const adminToken = /Admin token \(GATEWAY_ADMIN_TOKEN\):\s+(\S+)/.exec(output)?.[1];
  t.ok(key, 'a first key is printed');
  t.ok(adminToken, 'an admin token is printed');
  const logLines = output.split('\n').filter((line) => line.startsWith('{'));
  t.notOk(
    logLines.some((line) => line.includes(key as string) || line.includes(adminToken as string)),
    'the secrets are not in the structured log',
  );

  const client = new OpenAI({ apiKey: key, baseURL: `${origin}/v1`, maxRetries: 0 });
  const reply = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi' }] });
  t.equal(reply.model, 'gamma-5.4');
  t.match(reply.choices[0]?.message.content, /Hello/);
  const keys = await fetch(`${origin}/admin/v1/keys`, { headers: { authorization: `Bearer ${adminToken}` } });
  t.equal(keys.status, 200, 'the printed admin token works');

  first.kill('SIGTERM');
  t.equal(await first.exited, 0, 'SIGTERM stops it cleanly');

  const second = spawnGateway({ GATEWAY_DB: db });
  t.teardown(() => second.kill('SIGKILL'));
  const again = await second.ready;
  await new Promise((r) => setTimeout(r, 200));
  t.notMatch(second.output(), /First API key/, 'the secrets are printed only once');
  const stillWorks = await new OpenAI({ apiKey: key, baseURL: `${again}/v1`, maxRetries: 0 }).chat.completions.create({
    model: 'gamma-5.2',
    messages: [{ role: 'user', content: 'Hi' }],
  });
  t.equal(stillWorks.model, 'gamma-5.2', 'the key survives a restart');
  second.kill('SIGTERM');
  await second.exited;
});

t.test('a broken config is one clear line, not a stack trace', async (t) => {
  const run = spawnGateway({ PORT: 'eighty', GATEWAY_DB: join(tmpdir(), 'never.db') });
  t.equal(await run.exited, 1);
  t.match(run.output(), /gateway: .*gateway\.yaml: \/server\/port must be an integer/);
  t.notMatch(run.output(), /\n\s+at /, 'no stack trace');
});

t.test('with GATEWAY_ADMIN_TOKEN set, the first start mints and prints no secret', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-start-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const token = 'operator-chosen-admin-token-0123';
  const run = spawnGateway({ GATEWAY_DB: join(dir, 'gateway.db'), GATEWAY_ADMIN_TOKEN: token });
  t.teardown(() => run.kill('SIGKILL'));
  const origin = await run.ready;
  const keys = await fetch(`${origin}/admin/v1/keys`, { headers: { authorization: `Bearer ${token}` } });
  t.same(((await keys.json()) as { data: unknown[] }).data, [], 'no key was minted: the operator creates them');
  await new Promise((r) => setTimeout(r, 200));
  t.notMatch(run.output(), /sl-[A-Za-z0-9]{32}|First start/, 'nothing secret on the terminal');
  run.kill('SIGTERM');
  t.equal(await run.exited, 0);
});
