import { Agent, request } from 'node:http';

/**
 * Open-loop load at a bounded rate: requests start on a fixed schedule whatever the answers
 * do, at most `maxInFlight` at once (beyond that a start is skipped and counted), each given
 * up after `timeoutMs`. The load's own keep-alive connections are closed by `stop()`, so what
 * stays open in the gateway afterwards is the gateway's.
 */

export interface LoadRequest {
  kind: string;
  method: 'GET' | 'POST';
  path: string;
  token?: string;
  body?: unknown;
}

export interface LoadTally {
  /** `kind status` → count; status 0: no answer in time or the connection broke. */
  readonly answers: Map<string, number>;
  sent: number;
  skipped: number;
}

export interface OpenLoop {
  readonly tally: LoadTally;
  /** Stops starting requests, waits for those in flight, closes the connections. */
  stop(): Promise<void>;
}

export function openLoop(origin: string, perSecond: number, next: () => LoadRequest, options: { maxInFlight: number; timeoutMs: number }): OpenLoop {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxInFlight });
  const tally: LoadTally = { answers: new Map(), sent: 0, skipped: 0 };
  const inFlight = new Set<Promise<void>>();
  const count = (key: string): void => void tally.answers.set(key, (tally.answers.get(key) ?? 0) + 1);

  const send = (load: LoadRequest): Promise<void> =>
    new Promise((resolve) => {
      const body = load.body === undefined ? undefined : JSON.stringify(load.body);
      const req = request(`${origin}${load.path}`, {
        method: load.method,
        agent,
        timeout: options.timeoutMs,
        headers: { 'content-type': 'application/json', ...(load.token ? { authorization: `Bearer ${load.token}` } : {}) },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => {
          count(`${load.kind} ${res.statusCode ?? 0}`);
          resolve();
        });
        res.on('error', () => {
          count(`${load.kind} 0`);
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        count(`${load.kind} 0`);
        resolve();
      });
      req.end(body);
    });

  const timer = setInterval(() => {
    if (inFlight.size >= options.maxInFlight) {
      tally.skipped += 1;
      return;
    }
    tally.sent += 1;
    const call = send(next()).finally(() => inFlight.delete(call));
    inFlight.add(call);
  }, 1000 / perSecond);

  return {
    tally,
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      agent.destroy();
    },
  };
}
