import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { adjustedHeader } from '../chain/adjustments.js';
import { callOf } from '../chain/call.js';
import { cutForLog } from './redact.js';

const tenths = (ms: number): number => Math.round(ms * 10) / 10;

/** The path of a request URL without its query (which may carry anything a caller typed). */
export function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const query = raw.indexOf('?');
  return query === -1 ? raw : raw.slice(0, query);
}

/**
 * One log line per request, whatever answered it (the hot path, Express, a plugin): method,
 * path (cut to MAX_LOGGED_CHARS), status, canonical model, key id — never the key, a header or
 * a body —, outcome, the parameters adjusted (`x-gateway-adjusted`), latency and upstream latency.
 */
export function logRequests(log: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    res.once('close', () => {
      const call = callOf(res);
      const t = call?.timings;
      log.info(
        {
          method: req.method,
          path: cutForLog(pathOf(req.url)),
          status: call?.status || res.statusCode,
          model: call?.model?.id,
          key_id: call?.key?.id,
          outcome: call?.outcome,
          attempts: call?.attempts || undefined,
          adjusted: call?.adjustments ? adjustedHeader(call.adjustments) : undefined,
          latency_ms: tenths(performance.now() - started),
          upstream_ms: t?.upstreamHeaders ? tenths(t.upstreamHeaders - t.upstreamStart) : undefined,
        },
        'request',
      );
    });
  };
}
