import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { spawnGateway } from '../helpers/spawn-gateway.js';

/**
 * A caller without a key cannot make the gateway buffer a body: the key is checked from the
 * headers, and the refusal closes the connection instead of reading the upload. Measured on a
 * gateway process of its own (its RSS from /proc).
 */

const MIB = 1024 * 1024;
const rssMib = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** One keyless upload of `size` bytes (the same buffer written repeatedly); resolves with the status, or 0 if cut off. */
function keylessUpload(origin: string, size: number, chunk: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      `${origin}/v1/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(size) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    let sent = 0;
    const pump = (): void => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

t.test('50 concurrent keyless 19 MiB uploads: 401s, flat memory, health still quick', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-keyless-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const gateway = spawnGateway({ GATEWAY_DB: join(dir, 'gateway.db'), GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  t.teardown(() => gateway.kill('SIGKILL'));
  const origin = await gateway.ready;
  const pid = gateway.process.pid as number;
  await fetch(`${origin}/healthz`);
  const before = rssMib(pid);

  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMib(pid))), 50);
  const chunk = Buffer.alloc(MIB, 0x61);
  const uploads = Promise.all(Array.from({ length: 50 }, () => keylessUpload(origin, 19 * MIB, chunk)));
  const healthStarted = performance.now();
  const health = await fetch(`${origin}/healthz`);
  const healthMs = performance.now() - healthStarted;
  const statuses = await uploads;
  clearInterval(sampler);

  t.equal(health.status, 200);
  t.ok(healthMs < 1000, `/healthz answered in ${Math.round(healthMs)} ms during the uploads`);
  t.ok(
    statuses.every((s) => s === 401 || s === 0),
    'each upload was refused (401) or cut off, never read',
  );
  t.ok(statuses.filter((s) => s === 401).length >= 1, 'refusals reach the caller');
  t.ok(peak - before < 60, `RSS grew ${Math.round(peak - before)} MiB for 950 MiB of keyless uploads (bound 60 MiB)`);
});
