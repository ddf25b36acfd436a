import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_TOKEN } from './harness.js';
import type { SpawnedGateway } from './spawn-gateway.js';

/** Helpers for gateways run with GATEWAY_WORKERS > 1 (a primary and its workers, one output). */

export interface LogLine {
  msg: string;
  /** The worker's slot on lines a worker wrote (and on the primary's lines about a worker). */
  worker?: number;
  pid?: number;
  [field: string]: unknown;
}

/** The structured log lines of the output so far (the banner and other text skipped). */
export function logLines(output: string): LogLine[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

/** Polls the output (the log is written in batches, every 200 ms at the latest) until `found` holds. */
export async function waitForLog(gateway: SpawnedGateway, what: string, found: (lines: LogLine[]) => boolean, timeoutMs = 60_000): Promise<LogLine[]> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const lines = logLines(gateway.output());
    if (found(lines)) return lines;
    if (gateway.process.exitCode !== null) break;
    await sleep(50);
  }
  throw new Error(`waited in vain for ${what}:\n${gateway.output()}`);
}

/** The pid of each worker slot as its latest `worker listening` line says. */
export function workerPids(lines: LogLine[]): Map<number, number> {
  const pids = new Map<number, number>();
  for (const line of lines) if (line.msg === 'worker listening' && line.worker && line.pid) pids.set(line.worker, line.pid);
  return pids;
}

/** Far above any call of the tests; a hang fails the test instead of stalling it. */
const REQUEST_TIMEOUT_MS = 20_000;

export interface Answer {
  status: number;
  text: string;
}

/**
 * One request on a TCP connection of its own: the primary hands every new connection to a
 * worker in turn, so a series of these reaches every worker (a kept-alive one would not).
 */
export function alone(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.end(init.body);
  });
}

/** A chat completion with `key` on a connection of its own. */
export const chatAlone = (origin: string, key: string, content: string): Promise<Answer> =>
  alone(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gamma-5.4', max_tokens: 8, messages: [{ role: 'user', content }] }),
  });

/** An admin API call on a connection of its own; throws unless it succeeds. */
export async function adminAlone(origin: string, method: string, path: string, body?: unknown): Promise<any> {
  const answer = await alone(`${origin}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
  return JSON.parse(answer.text);
}
