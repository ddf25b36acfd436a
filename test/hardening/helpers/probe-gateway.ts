import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledGateway } from '../../helpers/compiled-gateway.js';
import { admin } from '../../helpers/gateway-processes.js';
import { ADMIN_TOKEN } from '../../helpers/harness.js';
import { spawnGateway } from '../../helpers/spawn-gateway.js';

/**
 * A real gateway process (compiled, so its memory is its own) for the bad-input corpus, the
 * fuzzer and the soak: no vendor credential, so every family is answered by its built-in
 * simulator inside the process, and one credential of every kind a caller can present.
 */

export const CREDENTIALS = ['key', 'admin', 'revoked', 'rotated', 'restricted', 'capped', 'limited', 'unknown', 'malformed', 'imported'] as const;
export type Credential = (typeof CREDENTIALS)[number];

export interface ProbeGateway {
  origin: string;
  pid: number;
  /** The bearer token of each kind: `key` valid, `rotated` the replaced value (in its grace), `restricted` gamma-5.4 only, `capped` a 0.00 ceiling, `limited` 1 request a minute. */
  token: Readonly<Record<Credential, string>>;
  /** A key the fuzzer may revoke, rotate and edit through the admin API. */
  victimId: string;
  /** Resident set size of the gateway process, MiB; `baselineMiB` once the keys above were made. */
  rssMiB(): number;
  baselineMiB: number;
  /** GET /healthz answered 200. */
  healthy(): Promise<boolean>;
}

interface Created {
  id: string;
  key: string;
}

export async function startProbeGateway(t: { teardown(fn: () => unknown): void }, env: Record<string, string> = {}): Promise<ProbeGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-probe-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const gateway = spawnGateway({ GATEWAY_DB: join(dir, 'gateway.db'), GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, ...env }, await compiledGateway());
  t.teardown(() => gateway.kill('SIGKILL'));
  const origin = await gateway.ready;
  const create = (settings: Record<string, unknown>): Promise<Created> => admin(origin, 'POST', '/keys', { name: 'probe', ...settings }) as Promise<Created>;
  const key = await create({});
  const revoked = await create({});
  await admin(origin, 'POST', `/keys/${revoked.id}/revoke`);
  const rotated = await create({});
  await admin(origin, 'POST', `/keys/${rotated.id}/rotate`);
  const restricted = await create({ models: ['gamma-5.4'] });
  const capped = await create({ monthly_ceiling_usd: '0.00' });
  const limited = await create({ rpm_limit: 1 });
  const victim = await create({});
  const pid = gateway.process.pid as number;
  return {
    origin,
    pid,
    victimId: victim.id,
    baselineMiB: rssMiB(pid),
    token: {
      key: key.key,
      admin: ADMIN_TOKEN,
      revoked: revoked.key,
      rotated: rotated.key,
      restricted: restricted.key,
      capped: capped.key,
      limited: limited.key,
      unknown: `sl-${'Q'.repeat(32)}`,
      malformed: 'sl-short',
      imported: 'qua-0123456789abcdef0123',
    },
    rssMiB: () => rssMiB(pid),
    healthy: async () => (await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(5000) }).catch(() => null))?.status === 200,
  };
}

/** VmRSS of a process, MiB (Linux). */
export function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}
