import type { Histogram, Meter } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import type { SettledCall } from '../../src/plugin-api.js';
import { operationAttributes } from './attributes.js';

/**
 * The GenAI conventions' metrics, one observation per call that reached an upstream (a call
 * refused before, or answered from the response cache, asked no model anything). Their
 * attributes are the operation's (operation, provider, models, error type): never the key, so
 * that the series stay as many as the catalogue's models, not the callers.
 */

/** The conventions' advised bucket boundaries. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const FIRST_TOKEN_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0];

export class CallMetrics {
  private readonly tokens: Histogram;
  private readonly duration: Histogram;
  private readonly firstToken: Histogram;

  constructor(meter: Meter) {
    this.tokens = meter.createHistogram('gen_ai.client.token.usage', {
      unit: '{token}',
      description: 'Input and output tokens of each call, as billed (a stream cut short included).',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.duration = meter.createHistogram('gen_ai.client.operation.duration', {
      unit: 's',
      description: 'From the call received to its completion, every upstream attempt and retry included.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.firstToken = meter.createHistogram('gen_ai.server.time_to_first_token', {
      unit: 's',
      description: 'From a streamed call received to its first event written to the caller (successful streams).',
      advice: { explicitBucketBoundaries: FIRST_TOKEN_BUCKETS },
    });
  }

  record(call: SettledCall): void {
    if (call.attempts === 0) return;
    const attributes = operationAttributes(call);
    const { received, firstByte } = call.timings;
    this.duration.record((performance.now() - received) / 1000, attributes);
    // The tokens billed, a stream cut short included (the ledger's counts).
    if (call.usage) {
      this.tokens.record(call.usage.promptTokens, { ...attributes, 'gen_ai.token.type': 'input' });
      this.tokens.record(call.usage.completionTokens, { ...attributes, 'gen_ai.token.type': 'output' });
    }
    if (call.outcome === 'ok' && call.stream && firstByte) this.firstToken.record((firstByte - received) / 1000, attributes);
  }
}
