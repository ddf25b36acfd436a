import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, type Harness } from './harness.js';
import { openLedgerDb, type LedgerDb } from './ledger-db.js';

/** One answer of a queued upstream: what it writes to the response. */
export type Answer = (res: ServerResponse) => void;

/** A JSON 200 whose body is `body`. */
export const jsonAnswer =
  (body: unknown): Answer =>
  (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

/** A 200 event stream of reference chunks, each one `data:` frame, then `data: [DONE]`. */
export const sseAnswer =
  (chunks: unknown[]): Answer =>
  (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n');
  };

export interface QueuedUpstream {
  origin: string;
  /** Answers still to give, one per request in order; a request with none queued gets a 500. */
  answers: Answer[];
  /** Requests received so far. */
  requests: number;
  /** Their bodies, in order. */
  bodies: string[];
}

/**
 * A small vendor of a test's own, on 127.0.0.1: each request, read whole, gets the next queued
 * answer — for replies no simulator gives (cut short, malformed, interleaved).
 */
export async function queuedUpstream(t: { teardown(fn: () => unknown): void }): Promise<QueuedUpstream> {
  const upstream: QueuedUpstream = { origin: '', answers: [], requests: 0, bodies: [] };
  const server = createServer((req, res) => {
    upstream.requests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      upstream.bodies.push(Buffer.concat(chunks).toString('utf8'));
      const answer = upstream.answers.shift();
      if (answer) answer(res);
      else res.writeHead(500).end('{"error":{"message":"no answer queued"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.on('connection', (socket) => t.teardown(() => socket.destroy()));
  upstream.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}

/**
 * The gateway with gamma answered by a queued upstream (no retries: each queued answer is one
 * attempt), a key, and the ledger opened for reading: for tests of what gamma should not send.
 */
export async function gatewayOnQueuedGamma(t: {
  teardown(fn: () => unknown): void;
}): Promise<{ upstream: QueuedUpstream; h: Harness; id: string; key: string; db: LedgerDb }> {
  const upstream = await queuedUpstream(t);
  const h = await startHarness(t, { env: { GAMMA_BASE_URL: upstream.origin, GATEWAY_RETRY_MAX: '0' } });
  const { id, key } = await h.createKey();
  const db = openLedgerDb(h.dbPath);
  t.teardown(() => db.close());
  return { upstream, h, id, key, db };
}
