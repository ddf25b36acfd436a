import Anthropic from '@anthropic-ai/sdk';
import type { Harness } from './harness.js';

/** The official Messages SDK pointed at a test gateway's origin (its base URL), without client retries. */
export const sdk = (h: Harness, key: string | null, options: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}): Anthropic =>
  new Anthropic({ baseURL: h.origin, apiKey: key, maxRetries: 0, timeout: 20_000, ...options });

/** One model of each family: alpha passed through, beta and gamma translated. */
export const MESSAGES_MODELS = ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4'] as const;

export const hello: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hello there' }];

/** The JSON body of the last request a simulator received. */
export const lastUpstreamBody = (sim: Harness['alpha']): Record<string, unknown> => JSON.parse(sim.requests.at(-1)?.body ?? '{}') as Record<string, unknown>;
