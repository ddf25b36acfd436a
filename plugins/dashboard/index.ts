import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Response, Router } from 'express';
import { definePlugin } from '../../src/plugin-api.js';
import { OPERATOR_PORT_PROPERTIES, placeOperatorRoutes } from '../../src/toolkit/routes.js';

/**
 * `dashboard`: serves the web dashboard (built by `npm run build` into dist/dashboard) at
 * /dashboard — on the gateway's port, or on a port of its own (`port`), which then also
 * answers the two APIs the page calls (/admin/v1 and /v1/models) by handing them to the
 * gateway. The page talks only to /admin/v1 with the admin token as Bearer. Every response
 * carries a strict Content-Security-Policy: same-origin scripts, styles and requests only, no
 * inline code, no framing.
 */

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const ASSETS: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'assets/app.js': 'text/javascript; charset=utf-8',
  'assets/app.css': 'text/css; charset=utf-8',
};

interface DashboardConfig {
  /** Where the built bundle is; relative paths are from the package root. */
  assets_dir: string;
  /** A port of its own (null: the gateway's), and the host it binds (null: the gateway's). */
  port: number | null;
  host: string | null;
}

export default definePlugin<DashboardConfig>({
  name: 'dashboard',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { assets_dir: { type: 'string', minLength: 1, default: 'dist/dashboard' }, ...OPERATOR_PORT_PROPERTIES },
  },
  async setup({ log, config: gateway, dispatch }, config) {
    const dir = resolve(config.assets_dir);
    const files = new Map<string, Buffer>();
    for (const name of Object.keys(ASSETS)) {
      try {
        files.set(name, readFileSync(join(dir, name)));
      } catch {
        log.error({ dir }, `dashboard asset ${name} is missing: run npm run build`);
      }
    }
    const send = (res: Response, name: string): void => {
      const body = files.get(name);
      if (!body) {
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('The dashboard is not built: run npm run build.\n');
        return;
      }
      const cache = name === 'index.html' ? 'no-cache' : 'public, max-age=300';
      res.writeHead(200, { 'content-type': ASSETS[name] as string, 'content-length': String(body.length), 'cache-control': cache });
      res.end(body);
    };
    const mount = (router: Router): void => {
      // Every answer under /dashboard carries them, whoever writes it: the edge's 404 of an
      // unknown asset and its 400 of an undecodable path too (their headers merge with these).
      router.use('/dashboard', (_req, res, next) => {
        for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
        next();
      });
      router.get(['/dashboard', '/dashboard/'], (_req, res) => send(res, 'index.html'));
      // Any other asset is an unknown path: the edge's 404 (which follows these routes).
      router.get('/dashboard/assets/:file', (req, res, next) => {
        const name = `assets/${req.params.file}`;
        if (name in ASSETS) send(res, name);
        else next();
      });
    };
    const placed = await placeOperatorRoutes(config.port, config.host ?? gateway.server.host, (router) => {
      mount(router);
      // On its own port the page's API calls are the gateway's to answer, with their full path.
      router.use(['/admin/v1', '/v1/models'], (req, res) => {
        req.url = req.originalUrl;
        dispatch(req, res);
      });
    });
    if (placed.side) log.info({ origin: placed.side.origin }, 'dashboard listening on its own port');
    return {
      ...(placed.side ? { close: () => placed.side?.close() } : { routes: mount }),
    };
  },
});
