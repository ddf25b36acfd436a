import type { Request, Response } from 'express';
import { cycleOf, definePlugin, formatUsd, GatewayError } from '../../src/plugin-api.js';
import { handled, sendJson } from '../../src/toolkit/routes.js';
import { ledgerRow } from './ledger-row.js';
import { usageReport } from './usage-report.js';

/**
 * `ledger`: one row per call that reached an upstream, written by `onComplete`, which the
 * pipeline awaits before the last byte of a reply (for a stream, before `data: [DONE]`): an
 * answered call is committed. The row's transaction also adds its cost to the cycle's spend
 * and drops the call's ceiling reservation. Serves `GET /v1/usage` and, for operators,
 * `GET /admin/v1/keys/:id/usage` with the same body; `GET /admin/v1/usage` (every key) and
 * `GET /admin/v1/usage/keys` (each key's cycle spend and last call) for the dashboard.
 */
export default definePlugin({
  name: 'ledger',
  needs: ['key', 'model'],
  setup({ store, clock }) {
    return {
      async onComplete(call) {
        const { key, model } = call;
        // A call answered from the response cache reached no upstream and still has its row.
        if ((call.attempts === 0 && call.givenAnswer === null) || !key || !model) return;
        const row = ledgerRow(call, key, model);
        call.ledgerRow = row;
        await store.ledger.record(row, call.reservation?.id ?? null);
        call.reservation = null;
      },
      responders: {
        usage(call) {
          return usageReport(store, call.key, clock.now());
        },
      },
      adminRoutes(router) {
        router.get(
          '/usage',
          handled(async (_req: Request, res: Response) => {
            sendJson(res, 200, JSON.stringify(await usageReport(store, null, clock.now())));
          }),
        );
        // Per key, this cycle's spend and holds (charged and upstream) and the last call: the dashboard's key table.
        router.get(
          '/usage/keys',
          handled(async (_req: Request, res: Response) => {
            const now = clock.now();
            const activity = await store.ledger.keyActivity(cycleOf(now).id, now);
            const data = activity.map((a) => ({
              key_id: a.keyId,
              cycle_spent_usd: formatUsd(a.spent),
              cycle_reserved_usd: formatUsd(a.reserved),
              cycle_upstream_spent_usd: formatUsd(a.upstreamSpent),
              cycle_upstream_reserved_usd: formatUsd(a.upstreamReserved),
              last_used_at: a.lastUsedAt === null ? null : new Date(a.lastUsedAt).toISOString(),
            }));
            sendJson(res, 200, JSON.stringify({ object: 'list', data }));
          }),
        );
        router.get(
          '/keys/:id/usage',
          handled(async (req: Request, res: Response) => {
            const id = String(req.params['id']);
            const key = await store.keys.get(id);
            if (!key) throw new GatewayError(404, `No key with id '${id}'.`, { param: 'id' });
            sendJson(res, 200, JSON.stringify(await usageReport(store, key, clock.now())));
          }),
        );
      },
    };
  },
});
