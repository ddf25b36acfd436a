import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Simulator of a routing aggregator's usage API, the one the `or-` connector reads:
 * `GET /api/v1/activity?days=N` with `Authorization: Bearer or-…` → `{"data": [...]}`.
 * Tests give each key its activity rows; an unknown key is refused with 401.
 */
export interface ActivityRow {
  date: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  /** Cost in dollars, as the aggregator reports it. */
  usage: number;
}

export class AggregatorUsageSimulator {
  readonly activity = new Map<string, ActivityRow[]>();
  /** Bearer values seen, for tests that check what the connector sent. */
  readonly seenKeys: string[] = [];
  private readonly server: Server;
  private origin = '';

  constructor() {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://sim');
      const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      this.seenKeys.push(key);
      const rows = this.activity.get(key);
      if (req.method !== 'GET' || url.pathname !== '/api/v1/activity') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      } else if (!rows) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid key"}}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: rows }));
      }
    });
  }

  get url(): string {
    return this.origin;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.origin;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
