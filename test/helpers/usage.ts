import type OpenAI from 'openai';
import type { Harness } from './harness.js';

/** The body of `GET /v1/usage` as the ledger tests read it, and the one-message ask they send. */

export interface UsageRow {
  date: string;
  model: string;
  requests: number;
  cached_requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  cost_usd: string;
  upstream_cost_usd: string;
  list_cost_usd: string;
  savings_usd: string;
}
export interface UsageBody {
  object: string;
  key_id: string;
  period: { start: string; end: string; days: number };
  totals: Omit<UsageRow, 'date' | 'model'>;
  cycle: Record<string, string | null>;
  data: UsageRow[];
}

export async function usage(h: Harness, key: string): Promise<UsageBody> {
  const res = await fetch(`${h.baseURL}/usage`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`usage answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as UsageBody;
}

export const ask = (content: string): OpenAI.ChatCompletionMessageParam[] => [{ role: 'user', content }];
