import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createBetaSimulator } from '../plugins/vendor-beta/simulator.js';
import { configFileWith } from './helpers/config-file.js';
import { admin } from './helpers/gateway-processes.js';
import { ADMIN_TOKEN, BETA_UPSTREAM_KEY } from './helpers/harness.js';
import { CA_FILE, startImageServer } from './helpers/image-server.js';
import { spawnGateway } from './helpers/spawn-gateway.js';

/**
 * Remote images for beta are held in memory: a gateway-wide budget bounds the bytes held at
 * once. The gateway runs as its own process so that its RSS is its own: six calls at once,
 * each with six 4 MiB images (144 MiB in all) and an upstream that takes a second to answer,
 * against a 32 MiB budget.
 */

const MIB = 1024 * 1024;
const BUDGET = 32 * MIB;
const CALLS = 6;
const IMAGES_PER_CALL = 6;
const IMAGE_BYTES = 4 * MIB;

/** The beta plugin's image settings, in a copy of the repository's gateway.yaml. */
const configFile = (dir: string): string =>
  configFileWith(dir, 'vendor-beta', { remote_images: { allow_cidrs: ['127.0.0.1/32'], ca_file: CA_FILE, max_bytes_held: BUDGET, budget_wait_ms: 300 } });

const statusField = (pid: number, field: string): number => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) * 1024;
};

t.test('concurrent calls whose images exceed the budget: some 503, memory bounded, the budget back to zero', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-images-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const images = await startImageServer(t);
  const beta = createBetaSimulator({ apiKey: BETA_UPSTREAM_KEY });
  await beta.listen();
  t.teardown(() => beta.close());
  const gateway = spawnGateway({
    GATEWAY_CONFIG: configFile(dir),
    GATEWAY_DB: join(dir, 'gateway.db'),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    BETA_BASE_URL: beta.url,
    BETA_API_KEY: BETA_UPSTREAM_KEY,
  });
  t.teardown(() => gateway.kill('SIGKILL'));
  const origin = await gateway.ready;
  const pid = gateway.process.pid as number;
  const { key } = (await admin(origin, 'POST', '/keys', { name: 'images' })) as { key: string };

  const chat = async (imageCount: number, bytes: number): Promise<{ status: number; body: { error?: { message: string; code: string } } }> => {
    const content = [
      { type: 'text', text: 'Describe these. [[sim:delay_ms=1000]]' },
      ...Array.from({ length: imageCount }, () => ({ type: 'image_url', image_url: { url: `${images.origin}/blob/${bytes}?ms=300` } })),
    ];
    const res = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'beta-3-flash', messages: [{ role: 'user', content }] }),
    });
    return { status: res.status, body: (await res.json()) as { error?: { message: string; code: string } } };
  };
  const held = async (): Promise<number> => {
    const text = await (await fetch(`${origin}/metrics`)).text();
    return Number(/^gateway_image_bytes_held (\d+)/m.exec(text)?.[1]);
  };

  t.equal((await chat(IMAGES_PER_CALL, IMAGE_BYTES)).status, 200, 'one call alone fits and succeeds (and warms the gateway up)');
  // Peak RSS from here on: writing 5 to clear_refs resets VmHWM to the current RSS.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = statusField(pid, 'VmRSS');

  const burst = Promise.all(Array.from({ length: CALLS }, () => chat(IMAGES_PER_CALL, IMAGE_BYTES)));
  // What the gateway says it holds, every 100 ms while the calls run (a bounded loop: they end within seconds).
  const samples: number[] = [];
  let done = false;
  void burst.finally(() => (done = true));
  for (let i = 0; i < 100 && !done; i++) {
    samples.push(await held());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const results = await burst;
  const peak = statusField(pid, 'VmHWM');
  const statuses = results.map((result) => result.status).sort();
  t.comment(`statuses ${statuses.join(' ')}; RSS before ${(before / MIB).toFixed(1)} MiB, peak ${(peak / MIB).toFixed(1)} MiB (+${((peak - before) / MIB).toFixed(1)} MiB) for ${(CALLS * IMAGES_PER_CALL * IMAGE_BYTES) / MIB} MiB of images against a ${BUDGET / MIB} MiB budget`);

  t.ok(statuses.includes(200), 'some calls got their images');
  const refused = results.filter((result) => result.status === 503);
  t.ok(refused.length > 0, 'some calls found no room within the wait');
  t.ok(statuses.every((status) => status === 200 || status === 503), 'and nothing else: no crash, no hang');
  for (const result of refused) {
    t.equal(result.body.error?.code, 'service_unavailable');
    t.match(result.body.error?.message, `holds as many remote image bytes as it may, so the image at messages[0].content[`);
    t.match(result.body.error?.message, `no room for 4 MiB more within 300 ms: the ${BUDGET / MIB} MiB held at once by all calls together). Try again shortly.`);
  }
  // The margin: while a call is translated its images exist about four times over for a moment
  // (bytes, base64 text, the JSON text, its Buffer), plus the collector's slack. Measured:
  // +81 to +140 MiB; without a budget the same calls took +409 MiB.
  const margin = 160 * MIB;
  t.ok(peak - before < BUDGET + margin, `peak RSS grew ${((peak - before) / MIB).toFixed(1)} MiB: within the budget + ${margin / MIB} MiB`);
  t.ok(Math.max(...samples) > 0 && Math.max(...samples) <= BUDGET, `at most the budget held while the calls ran (largest sample ${(Math.max(...samples) / MIB).toFixed(1)} MiB)`);
  t.equal(await held(), 0, 'the budget is back to zero');
});
