import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { Test } from 'tap';
import { createAlphaVendor } from '../../plugins/vendor-alpha/simulator.js';
import { createBetaVendor } from '../../plugins/vendor-beta/simulator.js';
import { createGammaVendor } from '../../plugins/vendor-gamma/simulator.js';
import { SimServer } from '../../src/simulators/sim-server.js';
import { ALPHA_UPSTREAM_KEY, BETA_UPSTREAM_KEY, GAMMA_UPSTREAM_KEY, startHarness, type Harness } from './harness.js';
import { openLedgerDb, type LedgerDbRow } from './ledger-db.js';
import { scriptedVendor, type ToolScript } from './tool-script.js';

/**
 * The gateway as the real-client tests (test/clients/*.test.ts) use it: started as `npm start`
 * builds it, its three families answered by their simulators with scripted tool calls
 * (tool-script.ts), and one caller key. A client is given nothing but the gateway's address and
 * this key.
 */

/** One model of each family. */
export const CLIENT_MODELS = ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4'] as const;

/** What every simulator answers to a prompt without directives (reply-plan.ts, 12 words). */
export const SIMULATED_TEXT = 'Hello from the simulated upstream; this reply is deterministic and counted word';

/** What the client tests check of a ledger row. */
export interface CallSummary {
  model: string;
  endpoint: string;
  status: number;
  outcome: string;
}

export const summary = (rows: LedgerDbRow[]): CallSummary[] => rows.map(({ model, endpoint, status, outcome }) => ({ model, endpoint, status, outcome }));

/** `count` calls of `model` at `endpoint`, answered. */
export const answered = (model: string, endpoint: string, count: number): CallSummary[] =>
  Array.from({ length: count }, () => ({ model, endpoint, status: 200, outcome: 'ok' }));

export interface ClientGateway {
  h: Harness;
  key: string;
  keyId: string;
  /** The tool call the simulators make when offered that tool (undefined: their default). */
  script(next: ToolScript | undefined): void;
  /** What `run` returned, and the ledger rows of the calls it made. */
  during<T>(run: () => Promise<T>): Promise<{ result: T; rows: LedgerDbRow[] }>;
  /**
   * `ip:port` of every TCP connection this test process (the SDKs run in it) began to an address
   * outside loopback since the gateway started. A client started as its own process is kept on
   * loopback by its proxy instead (test/clients/helpers/egress-guard.ts).
   */
  outsideConnections(): string[];
  /** The gateway's answers of status 400 and above so far, from its request log (`400 POST /v1/responses alpha-sonnet-4.6`), to say why a client failed. */
  failures(): string[];
}

interface RequestLogLine {
  msg?: string;
  method?: string;
  path?: string;
  status?: number;
  model?: string;
}

const isLoopback = (ip: string): boolean => ip.startsWith('127.') || ip === '::1' || ip === '::ffff:127.0.0.1';

/** Records each connection attempt of this process (`net.client.socket`: every socket, fetch's too) to an address outside loopback. */
export function watchOutsideConnections(t: Test): () => string[] {
  const outside: string[] = [];
  const onSocket = (message: unknown): void => {
    (message as { socket: Socket }).socket.on('connectionAttempt', (ip: string, port: number) => {
      if (!isLoopback(ip)) outside.push(`${ip}:${port}`);
    });
  };
  subscribe('net.client.socket', onSocket);
  t.teardown(() => unsubscribe('net.client.socket', onSocket));
  return () => [...outside];
}

export async function startClientGateway(t: Test): Promise<ClientGateway> {
  const outsideConnections = watchOutsideConnections(t);
  let current: ToolScript | undefined;
  const script = (): ToolScript | undefined => current;
  const sims = {
    alpha: new SimServer(scriptedVendor(createAlphaVendor(), script), { apiKey: ALPHA_UPSTREAM_KEY }),
    beta: new SimServer(scriptedVendor(createBetaVendor(), script), { apiKey: BETA_UPSTREAM_KEY }),
    gamma: new SimServer(scriptedVendor(createGammaVendor(), script), { apiKey: GAMMA_UPSTREAM_KEY }),
  };
  for (const sim of Object.values(sims)) await sim.listen();
  t.teardown(() => Promise.all(Object.values(sims).map((sim) => sim.close())));
  const h = await startHarness(t, sims);
  const { id, key } = await h.createKey({ name: 'real clients' });
  const ledger = (): LedgerDbRow[] => {
    const db = openLedgerDb(h.dbPath);
    try {
      return db.rows(id);
    } finally {
      db.close();
    }
  };
  return {
    h,
    key,
    keyId: id,
    outsideConnections,
    script: (next) => {
      current = next;
    },
    during: async (run) => {
      const before = ledger().length;
      const result = await run();
      return { result, rows: ledger().slice(before) };
    },
    failures: () =>
      h.logs
        .map((line) => JSON.parse(line) as RequestLogLine)
        .filter((line) => line.msg === 'request' && (line.status ?? 0) >= 400)
        .map((line) => [line.status, line.method, line.path, line.model].filter(Boolean).join(' ')),
  };
}
