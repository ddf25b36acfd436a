import { spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import type { GatewayConfig } from '../../src/config/schema.js';

/** Helpers for the operations tests (retries, timeouts, metrics, status). */

/** A config edit that sets one plugin's `config:` block, as the YAML would. */
export const pluginConfig =
  (name: string, settings: Record<string, unknown>) =>
  (config: GatewayConfig): void => {
    const entry = config.plugins.find((p) => p.name === name);
    if (!entry) throw new Error(`plugin ${name} is not in config/gateway.yaml`);
    entry.config = settings;
  };

/** A short cadence with the spec's shape (delay ± jitter), so tests do not wait 16 s. */
export const SHORT_CADENCE = [
  { delay_ms: 100, jitter_ms: 20 },
  { delay_ms: 200, jitter_ms: 40 },
  { delay_ms: 300, jitter_ms: 60 },
  { delay_ms: 400, jitter_ms: 80 },
];

/** A loopback port nothing listens on (connections are refused). */
export async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * An address where TCP connects hang: a child process listens with a backlog of 1 and then
 * blocks its event loop, so it never accepts; once two connections fill its queue, the kernel
 * drops further SYNs and a connect stays pending until the client gives up.
 */
export async function blackhole(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const script = `const s = require('net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
    process.stdout.write(s.address().port + '\\n');
    setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0), 20);
  });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.teardown(() => child.kill('SIGKILL'));
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (let i = 0; i < 2; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    t.teardown(() => socket.destroy());
  }
  return `http://127.0.0.1:${port}`;
}

/** Parses Prometheus text into `series{labels}` → value. */
export function parseMetrics(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}
