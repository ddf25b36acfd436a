import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { chatAlone } from '../helpers/cluster.js';
import { mockDeployment } from '../helpers/mock-deployment.js';
import { spawnGateway } from '../helpers/spawn-gateway.js';

/**
 * SIGHUP reloads the deployment lists of a running `npm start` (docs/deployments.md#reload):
 * new calls go to the new list; a list that does not load is logged and the one in force kept.
 */

const shipped = readFileSync('config/gateway.yaml', 'utf8').replace('catalogue: models.yaml', `catalogue: ${resolve('config/models.yaml')}`);

/** Waits (bounded) until `seen()` holds. */
async function until(seen: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!seen()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('SIGHUP: a new list for new calls; an invalid one is refused and the old one kept', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-reload-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [first, second] = [await mockDeployment(t), await mockDeployment(t)];
  const file = join(dir, 'gateway.yaml');
  const withGamma = (entries: string): void => writeFileSync(file, `${shipped}\nupstreams:\n  gamma:\n${entries}`);
  withGamma(`    - { name: first, base_url: "${first.url}" }\n`);
  const run = spawnGateway({ GATEWAY_CONFIG: file, GATEWAY_DB: join(dir, 'gateway.db') });
  t.teardown(async () => {
    run.kill();
    await run.exited;
  });
  const origin = await run.ready;
  const key = /First API key:\s+(sl-[A-Za-z0-9]{32})/.exec(run.output())?.[1] ?? '';
  const chat = async (): Promise<number> =>
    (
      await fetch(`${origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi' }] }),
      })
    ).status;
  t.equal(await chat(), 200);
  t.same([first.calls, second.calls], [1, 0], 'the list of the start');

  withGamma(`    - { name: second, base_url: "${second.url}" }\n`);
  run.kill('SIGHUP');
  await until(() => run.output().includes('upstream deployments reloaded'), 'the reload');
  t.equal(await chat(), 200);
  t.same([first.calls, second.calls], [1, 1], 'the new list after SIGHUP');

  withGamma(`    - { name: third, base_url: "${first.url}", api_key_env: NOT_SET_ANYWHERE }\n`);
  run.kill('SIGHUP');
  await until(() => run.output().includes('upstream deployments not reloaded'), 'the refusal');
  t.match(run.output(), /\/upstreams\/gamma\/0\/api_key_env names NOT_SET_ANYWHERE, which is not set/, 'logged with the path at fault');
  t.equal(await chat(), 200);
  t.same([first.calls, second.calls], [1, 2], 'the list in force kept');
});

t.test('SIGHUP to the primary of two workers: each worker reloads, and every new connection goes to the new list', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-reload-workers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [first, second] = [await mockDeployment(t), await mockDeployment(t)];
  const file = join(dir, 'gateway.yaml');
  const withGamma = (name: string, url: string): void => writeFileSync(file, `${shipped}\nupstreams:\n  gamma:\n    - { name: ${name}, base_url: "${url}" }\n`);
  withGamma('first', first.url);
  const run = spawnGateway({ GATEWAY_CONFIG: file, GATEWAY_DB: join(dir, 'gateway.db'), GATEWAY_WORKERS: '2' });
  t.teardown(async () => {
    run.kill();
    await run.exited;
  });
  const origin = await run.ready;
  const key = /First API key:\s+(sl-[A-Za-z0-9]{32})/.exec(run.output())?.[1] ?? '';
  // Connections of their own: the primary hands them to the workers in turn, so both answer some.
  const calls = async (count: number): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await chatAlone(origin, key, `call ${i}`)).status);
    return statuses;
  };
  t.same(await calls(6), Array<number>(6).fill(200));
  t.same([first.calls, second.calls], [6, 0], 'the list of the start, on both workers');

  withGamma('second', second.url);
  const reloads = (): number => run.output().split('upstream deployments reloaded').length - 1;
  run.kill('SIGHUP');
  await until(() => reloads() === 2, 'both workers reloaded');
  t.same(await calls(6), Array<number>(6).fill(200));
  t.same([first.calls, second.calls], [6, 6], 'the new list on both workers');
  t.equal(reloads(), 2, 'one reload per worker, none in the primary');
});
