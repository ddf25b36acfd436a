import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Router } from 'express';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { Chain } from '../chain/chain.js';
import { edgeErrors, methodNotAllowed, notFound, sendMethodNotAllowed } from './edge.js';
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

  // No automatic OPTIONS answers (Express lists a route's methods in a 200): the gateway serves
  // no CORS preflight, so OPTIONS is the 405 of a documented path (the call paths answer it in
  // api-entry.ts, the model paths here) or a 404 like any unknown call.
  app.options([...MODEL_PATHS], (req, res) => sendMethodNotAllowed(res, req.method, 'GET, HEAD'));
  app.use((req, res, next) => (req.method === 'OPTIONS' ? notFound(req, res, next) : next()));

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
