import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Response } from 'express';
import { definePlugin } from '../../src/chain/plugin.js';

/**
 * `dashboard`: serves the web dashboard (built by `npm run build` into dist/dashboard) at
 * /dashboard. The page talks only to /admin/v1 with the admin token as Bearer. Every
 * response carries a strict Content-Security-Policy: same-origin scripts, styles and
 * requests only, no inline code, no framing.
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
}

export default definePlugin<DashboardConfig>({
  name: 'dashboard',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { assets_dir: { type: 'string', minLength: 1, default: 'dist/dashboard' } },
  },
  setup({ log }, config) {
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
        res.writeHead(503, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' }).end('The dashboard is not built: run npm run build.\n');
        return;
      }
      const cache = name === 'index.html' ? 'no-cache' : 'public, max-age=300';
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': ASSETS[name] as string, 'content-length': String(body.length), 'cache-control': cache });
      res.end(body);
    };
    return {
      routes(router) {
        router.get(['/dashboard', '/dashboard/'], (_req, res) => send(res, 'index.html'));
        router.get('/dashboard/assets/:file', (req, res) => {
          const name = `assets/${String(req.params['file'])}`;
          if (name in ASSETS) send(res, name);
          else res.writeHead(404, SECURITY_HEADERS).end();
        });
      },
    };
  },
});
