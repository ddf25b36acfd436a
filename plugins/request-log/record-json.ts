import { formatUsd } from '../../src/plugin-api.js';
import type { RequestRecord } from './store/log-store.js';

/** Where the dashboard links a trace: the plugin's `trace_url` with `{trace_id}` replaced; null without one. */
export type TraceLink = ((traceId: string) => string) | null;

/** A record as the admin API answers it: times in ISO 8601, money as the admin API's decimal strings. */
export function recordJson(record: RequestRecord, traceLink: TraceLink): Record<string, unknown> {
  return {
    id: record.id,
    object: 'request',
    created_at: new Date(record.at).toISOString(),
    key_id: record.keyId,
    model: record.model,
    endpoint: record.endpoint,
    stream: record.stream,
    deployment: record.deployment,
    status: record.status,
    outcome: record.outcome,
    latency_ms: record.latencyMs,
    ttft_ms: record.ttftMs,
    usage: {
      input_tokens: record.inputTokens,
      output_tokens: record.outputTokens,
      cache_read_tokens: record.cacheReadTokens,
      cache_write_tokens: record.cacheWriteTokens,
      reasoning_tokens: record.reasoningTokens,
    },
    cost_usd: formatUsd(record.chargedNanos),
    upstream_cost_usd: formatUsd(record.upstreamNanos),
    attempts: record.attempts,
    cache_hit: record.cacheHit,
    trace_id: record.traceId,
    trace_url: record.traceId !== null && traceLink ? traceLink(record.traceId) : null,
  };
}
