import express, { type Express } from 'express';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Router } from 'express';
import type { Catalogue } from '../catalogue/catalogue.js';
import { ENDPOINTS, type Call } from '../chain/call.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { Chain } from '../chain/chain.js';
import { edgeErrors, methodNotAllowed, notFound, rawBody } from './edge.js';
import { mountModelRoutes } from './models-routes.js';

export interface AppParts {
  catalogue: Catalogue;
  chain: Chain;
  pipeline: Pipeline;
  admin: Router;
  log: Logger;
  maxBodyBytes: number;
}

/** One log line per request: never a key, a header or a body. */
function requestLog(log: Logger): express.RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      const call = res.locals['call'] as Call | undefined;
      const t = call?.timings;
      log.info(
        {
          method: req.method,
          path: req.path,
          status: call?.status || res.statusCode,
          model: call?.model?.id,
          key_id: call?.key?.id,
          outcome: call?.outcome,
          attempts: call?.attempts || undefined,
          latency_ms: Math.round((performance.now() - started) * 10) / 10,
          upstream_ms: t && t.upstreamHeaders ? Math.round((t.upstreamHeaders - t.upstreamStart) * 10) / 10 : undefined,
        },
        'request',
      );
    });
    next();
  };
}

/** The Express app: edge layer, /v1 routes through the pipeline, /admin/v1, and the fallbacks. */
export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestLog(parts.log));

  mountModelRoutes(app, parts.catalogue);
  const body = rawBody(parts.maxBodyBytes);
  for (const endpoint of Object.values(ENDPOINTS)) {
    if (endpoint.method === 'POST') app.post(endpoint.path, body, parts.pipeline.handler(endpoint));
    else app.get(endpoint.path, parts.pipeline.handler(endpoint));
  }
  methodNotAllowed(app);
  const pluginRoutes = express.Router();
  parts.chain.mountRoutes(pluginRoutes);
  app.use(pluginRoutes);
  app.use('/admin/v1', parts.admin);
  app.use(notFound);
  app.use(edgeErrors(parts.maxBodyBytes, parts.log));
  return app;
}
