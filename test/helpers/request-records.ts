import { ID_PREFIX, type RequestRecord } from '../../plugins/request-log/store/log-store.js';
import { mintTimedId } from '../../src/reference/ids.js';

/**
 * A request-log record of a call at `at` (epoch ms) for tests that load the log through its
 * store (plugins/request-log/store/): an answered gamma chat call unless `fields` say otherwise.
 */
export function logRecord(at: number, fields: Partial<Omit<RequestRecord, 'id' | 'at'>> = {}): RequestRecord {
  return {
    id: mintTimedId(ID_PREFIX, at),
    at,
    keyId: 'key_test',
    model: 'gamma-5.4',
    endpoint: 'chat.completions',
    stream: false,
    deployment: 'default',
    status: 200,
    outcome: 'ok',
    latencyMs: 1,
    ttftMs: null,
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    chargedNanos: 1,
    upstreamNanos: 1,
    attempts: 1,
    cacheHit: false,
    traceId: null,
    ...fields,
  };
}
