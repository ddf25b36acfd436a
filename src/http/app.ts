import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Router } from 'express';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { Chain } from '../chain/chain.js';
import { edgeErrors, methodNotAllowed, notFound } from './edge.js';
import { MODEL_PATHS, mountModelRoutes } from './models-routes.js';

export interface AppParts {
  catalogue: Catalogue;
  chain: Chain;
  admin: Router;
  log: Logger;
  maxBodyBytes: number;
}

/**
 * The Express app: everything but the API's call endpoints (served by src/http/api-entry.ts) —
 * the model list, the plugins' public routes, /admin/v1, the edge's 405/404, and its errors.
 */
export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // Plugins first: an ingress format may answer the model list in its own shape (ingress-messages).
  const pluginRoutes = express.Router();
  parts.chain.mountRoutes(pluginRoutes);
  app.use(pluginRoutes);
  mountModelRoutes(app, parts.catalogue);
  methodNotAllowed(app, MODEL_PATHS);
  app.use('/admin/v1', parts.admin);
  app.use(notFound);
  app.use(edgeErrors(parts.maxBodyBytes, parts.log));
  return app;
}
