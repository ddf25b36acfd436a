import type { Request, Response } from 'express';
import { definePlugin, GatewayError, PluginConfigError } from '../../src/plugin-api.js';
import { handled, sendJson } from '../../src/toolkit/routes.js';
import { RecordQueue } from './record-queue.js';
import { recordJson, type TraceLink } from './record-json.js';
import { requestRecord } from './record.js';
import { cursorOf, requestQuery } from './query.js';
import type { RequestRecord } from './store/log-store.js';
import { REQUEST_LOG_STATE } from './store/state.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Records beyond the retention are deleted at most this often, after a batch is written. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** Records one write takes at most (one transaction on SQLite, one statement on PostgreSQL). */
const BATCH_ROWS = 1000;
const TRACE_ID_SLOT = '{trace_id}';

interface RequestLogConfig {
  retention_days: number;
  max_rows: number;
  max_queued: number;
  flush_ms: number;
  trace_url: string | null;
}

/**
 * `request-log`: a record of every call of a known key — refusals included, never a body or a
 * header value — kept for `retention_days` and at most `max_rows`, newest first through
 * `GET /admin/v1/requests` (filters, cursor paging) and `GET /admin/v1/requests/{id}`, which the
 * dashboard's Requests page reads (docs/request-log.md). Listed above the ledger: its completion
 * hook runs after the ledger's and takes the row's tokens and costs (`call.ledgerRow`). The hook
 * only queues the record; a timer writes the queue in batches, off the calls' path.
 */
export default definePlugin({
  name: 'request-log',
  needs: ['key'],
  before: ['ledger'],
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      retention_days: { type: 'integer', minimum: 1, maximum: 3650, default: 30 },
      max_rows: { type: 'integer', minimum: 1, default: 1_000_000 },
      max_queued: { type: 'integer', minimum: 10, maximum: 1_000_000, default: 10_000 },
      flush_ms: { type: 'integer', minimum: 10, maximum: 1000, default: 200 },
      trace_url: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
    },
  },
  async setup({ store, clock, log }, config: RequestLogConfig) {
    const template = config.trace_url;
    if (template !== null && (!/^https?:\/\//.test(template) || !template.includes(TRACE_ID_SLOT))) {
      throw new PluginConfigError(`/trace_url must be an http(s) URL with ${TRACE_ID_SLOT} in it, as "https://jaeger.example/trace/${TRACE_ID_SLOT}"`);
    }
    const traceLink: TraceLink = template === null ? null : (traceId) => template.replaceAll(TRACE_ID_SLOT, traceId);
    const requests = await store.extend(REQUEST_LOG_STATE);

    let prunedAt = Number.NEGATIVE_INFINITY;
    const pruneSoon = (): void => {
      const now = clock.now();
      if (now - prunedAt < PRUNE_EVERY_MS) return;
      prunedAt = now;
      requests
        .prune(now - config.retention_days * DAY_MS, config.max_rows)
        .then((removed) => (removed > 0 ? log.info({ removed }, 'request log records pruned') : undefined))
        .catch((error: unknown) => log.error({ err: error }, 'request log prune failed'));
    };
    const write = async (records: readonly RequestRecord[]): Promise<void> => {
      await requests.append(records);
      pruneSoon();
    };
    const queue = new RecordQueue(
      write,
      { maxQueued: config.max_queued, flushMs: config.flush_ms, batchRows: BATCH_ROWS },
      {
        writeFailed: (error, records) => log.warn({ err: error, records }, 'request log records could not be written'),
        dropped: (records) => log.warn({ records, max_queued: config.max_queued }, 'request log queue full: its oldest records dropped'),
      },
    );

    return {
      // A keyless call (401) has no record: who holds no key cannot grow the log.
      onComplete(call) {
        if (call.key) queue.push(requestRecord(call, call.key.id));
      },
      adminRoutes(router) {
        router.get(
          '/requests',
          handled(async (req: Request, res: Response) => {
            const query = requestQuery(req.query);
            // One more than the page: whether an older page exists, without a count.
            const rows = await requests.list({ ...query, limit: query.limit + 1 });
            const page = rows.slice(0, query.limit);
            const last = page.at(-1);
            const hasMore = rows.length > query.limit && last !== undefined;
            const body = {
              object: 'list',
              data: page.map((r) => recordJson(r, traceLink)),
              has_more: hasMore,
              next_cursor: hasMore ? cursorOf(last.id) : null,
            };
            sendJson(res, 200, JSON.stringify(body));
          }),
        );
        router.get(
          '/requests/:id',
          handled(async (req: Request, res: Response) => {
            const id = String(req.params['id']);
            const record = await requests.get(id);
            if (!record) throw new GatewayError(404, `No request with id '${id}'.`, { param: 'id' });
            sendJson(res, 200, JSON.stringify(recordJson(record, traceLink)));
          }),
        );
      },
      async close() {
        await queue.flush();
      },
    };
  },
});
