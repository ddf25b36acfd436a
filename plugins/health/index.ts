import { definePlugin } from '../../src/plugin-api.js';

/**
 * `health`: `GET /healthz` — the process is up and serving (liveness); `GET /readyz` — the
 * configuration is loaded (this plugin was set up from it) and the database takes writes
 * (readiness). 503 with the failing check named otherwise. Neither needs a key.
 */
export default definePlugin({
  name: 'health',
  setup({ store, log }) {
    return {
      routes(router) {
        router.get('/healthz', (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          res.end('{"status":"ok"}');
        });
        router.get('/readyz', async (_req, res) => {
          let database = 'ok';
          try {
            await store.checkWritable();
          } catch (error) {
            log.error({ err: error }, 'readiness: the database does not take writes');
            database = 'not writable';
          }
          const ready = database === 'ok';
          res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          res.end(JSON.stringify({ status: ready ? 'ready' : 'not_ready', checks: { config: 'ok', database } }));
        });
      },
    };
  },
});
