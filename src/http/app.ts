import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Router } from 'express';
import type { Catalogue } from '../catalogue/catalogue.js';
import { ENDPOINTS } from '../chain/call.js';
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

/** The Express app: edge layer, /v1 routes through the pipeline, /admin/v1, and the fallbacks. */
export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

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
