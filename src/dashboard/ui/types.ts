/** Shapes of the admin API as the dashboard reads them. */

export interface KeyView {
  id: string;
  name: string;
  /** Truncated, except right after create/rotate. */
  key: string;
  models: string[] | null;
  monthly_ceiling_usd: string | null;
  monthly_upstream_limit_usd: string | null;
  /** null: the rate-limit plugin's default; 0: exempt. */
  rpm_limit: number | null;
  /** Seconds the response cache keeps the key's answers; null or 0: off. */
  cache_ttl_s: number | null;
  status: 'active' | 'revoked' | 'expired';
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  rotated_at: string | null;
  /** Set while the value replaced by the last rotation still works. */
  previous_valid_until: string | null;
}

/** GET /admin/v1/usage/keys: a key's spend this cycle and its last call. */
export interface KeyActivityView {
  key_id: string;
  cycle_spent_usd: string;
  cycle_reserved_usd: string;
  last_used_at: string | null;
}

interface Sums {
  requests: number;
  /** Of the requests, those answered from the gateway's response cache. */
  cached_requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Of the prompt tokens, those read from and written to the vendors' prompt caches. */
  cached_tokens: number;
  cache_write_tokens: number;
  /** Of the completion tokens, those the models spent reasoning. */
  reasoning_tokens: number;
  cost_usd: string;
  list_cost_usd: string;
  savings_usd: string;
}

export interface UsageDay extends Sums {
  date: string;
  model: string;
}

/** GET /v1/usage, /admin/v1/keys/:id/usage and /admin/v1/usage. */
export interface UsageView {
  key_id: string | null;
  totals: Sums;
  cycle: { start: string; end: string; ceiling_usd: string | null; spent_usd: string; reserved_usd: string; remaining_usd: string | null };
  data: UsageDay[];
}

export interface ImportView {
  id: string;
  kind: string;
  prefix: string;
  kind_description: string;
  key: string;
  fingerprint: string;
  label: string;
  connector: boolean;
  created_at: string;
  history: { rows: number; from: string | null; to: string | null; days: number; unknown_models: string[] };
  projection: {
    output_tokens: number;
    paid_elsewhere_usd: string;
    list_cost_usd: string;
    charged_cost_usd: string;
    savings_usd: string;
    monthly_savings_usd: string;
    per_model: Array<{ model: string; output_tokens: number; list_cost_usd: string; charged_cost_usd: string; savings_usd: string }>;
    assumptions: string[];
  };
  daily?: Array<{ date: string; model: string; model_id: string | null; input_tokens: number; output_tokens: number; cost_usd: string }>;
}

export interface AuditView {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  status: number;
}

/** GET /admin/v1/deployments: one upstream deployment and its shared health (never its credential). */
export interface DeploymentView {
  family: string;
  name: string;
  base_url: string;
  weight: number;
  rpm: number | null;
  tpm: number | null;
  models: string[] | null;
  has_credential: boolean;
  health: { recent_failures: number; cooled_until: string | null; minute_requests: number; minute_tokens: number };
}

/** GET /admin/v1/requests and /requests/{id}: one call of the request log (never a body). */
export interface RequestView {
  id: string;
  created_at: string;
  key_id: string;
  model: string | null;
  endpoint: string;
  stream: boolean;
  deployment: string | null;
  status: number;
  outcome: string;
  latency_ms: number;
  ttft_ms: number | null;
  usage: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number; reasoning_tokens: number };
  cost_usd: string;
  upstream_cost_usd: string;
  attempts: number;
  cache_hit: boolean;
  trace_id: string | null;
  trace_url: string | null;
}

export interface RequestPage {
  data: RequestView[];
  has_more: boolean;
  next_cursor: string | null;
}
