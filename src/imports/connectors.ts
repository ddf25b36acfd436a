import type { KindName } from './key-kinds.js';

/**
 * A connector fetches an imported key's usage history live from the system that issued it,
 * using the key for that one call only (it is never stored). Records have the fields of an
 * export row (date, model, input/output tokens, cost) and go through the same checks.
 */
export interface UsageConnector {
  readonly kind: KindName;
  fetchHistory(key: string, days: number): Promise<Array<Record<string, unknown>>>;
}

export class ConnectorError extends Error {
  constructor(
    message: string,
    /** True when the remote refused the key (the caller's problem), false when it failed. */
    readonly refused: boolean,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

const TIMEOUT_MS = 10_000;

/**
 * A routing aggregator's activity API (`or-` keys): `GET {base}/api/v1/activity?days=N` with
 * the key as Bearer → `{"data": [{"date", "model", "prompt_tokens", "completion_tokens", "usage"}]}`,
 * `usage` being the cost in dollars.
 */
export class AggregatorConnector implements UsageConnector {
  readonly kind = 'aggregator' as const;

  constructor(private readonly baseUrl: string) {}

  async fetchHistory(key: string, days: number): Promise<Array<Record<string, unknown>>> {
    const url = new URL(`api/v1/activity?days=${days}`, this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    let res: Response;
    try {
      res = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new ConnectorError(`the aggregator's usage API could not be reached (${(error as Error).message})`, false);
    }
    if (res.status === 401 || res.status === 403) throw new ConnectorError('the aggregator refused the key', true);
    if (!res.ok) throw new ConnectorError(`the aggregator's usage API answered ${res.status}`, false);
    const body = (await res.json().catch(() => null)) as { data?: unknown } | null;
    if (!Array.isArray(body?.data)) throw new ConnectorError("the aggregator's usage API sent an unexpected body", false);
    return (body.data as Array<Record<string, unknown>>).map((item) => ({
      date: item['date'],
      model: item['model'],
      input_tokens: item['prompt_tokens'],
      output_tokens: item['completion_tokens'],
      cost: item['usage'],
    }));
  }
}

export interface ConnectorSettings {
  aggregator?: { base_url: string };
}

/** The connectors configured under `imports.connectors`, by kind. */
export function createConnectors(settings: ConnectorSettings): Partial<Record<KindName, UsageConnector>> {
  const connectors: Partial<Record<KindName, UsageConnector>> = {};
  if (settings.aggregator) connectors.aggregator = new AggregatorConnector(settings.aggregator.base_url);
  return connectors;
}
