import type { Catalogue } from '../catalogue/catalogue.js';
import { formatUsd } from '../catalogue/money.js';
import type { Clock } from '../clock.js';
import { GatewayError, invalidRequest } from '../http/errors.js';
import type { ImportedKey, ImportedUsageRow, Store } from '../store/store.js';
import { ConnectorError, type UsageConnector } from './connectors.js';
import { HistoryError, parseHistory, readHistoryRecords, type HistoryFormat } from './history-parser.js';
import { KIND_NAMES, recogniseKey, type KindName } from './key-kinds.js';
import { PROJECTION_ASSUMPTIONS, projectSavings } from './savings.js';
import { IMPORTABLE_PREFIXES } from '../keys/key-material.js';

/** How far back a connector fetches. */
const CONNECTOR_DAYS = 30;

export interface ImportRequest {
  key: string;
  label?: string;
  history?: { format: HistoryFormat; content: string };
  /** Fetch the history live through the key kind's connector. */
  fetch?: boolean;
}

/**
 * Importing a `qua-`/`sk-`/`or-` key: recognise its kind, keep only a fingerprint and its
 * last 4 characters, mirror its usage history (an uploaded export or a connector), and
 * project the savings had that traffic gone through this gateway.
 */
export class ImportService {
  constructor(
    private readonly store: Store,
    private readonly catalogue: Catalogue,
    private readonly clock: Clock,
    private readonly connectors: Partial<Record<KindName, UsageConnector>>,
  ) {}

  async importKey(request: ImportRequest): Promise<{ json: Record<string, unknown>; created: boolean }> {
    const recognised = recogniseKey(request.key);
    if (!recognised) {
      const hint = request.key.trim().startsWith('sl-') ? ' sl- keys are native to this gateway and need no import.' : '';
      throw invalidRequest(`key must be a qua-, sk- or or- key.${hint}`, 'key');
    }
    let rows: ImportedUsageRow[] | null = null;
    try {
      if (request.history) rows = parseHistory(request.history.format, request.history.content, this.catalogue).rows;
      else if (request.fetch) rows = readHistoryRecords(await this.fetchLive(recognised.kind, request.key.trim()), this.catalogue).rows;
    } catch (error) {
      if (error instanceof HistoryError) throw invalidRequest(error.message, request.history ? 'history' : 'fetch');
      throw error;
    }
    const label = request.label?.trim() || `${recognised.prefix}…${recognised.last4}`;
    const { key, created } = await this.store.imports.upsert(
      { kind: recognised.prefix, fingerprint: recognised.fingerprint, last4: recognised.last4, label, now: this.clock.now() },
      rows,
    );
    return { json: await this.describe(key, false), created };
  }

  async list(): Promise<Array<Record<string, unknown>>> {
    const keys = await this.store.imports.list();
    return Promise.all(keys.map((key) => this.describe(key, false)));
  }

  async get(id: string): Promise<Record<string, unknown> | undefined> {
    const key = await this.store.imports.get(id);
    return key ? this.describe(key, true) : undefined;
  }

  /** Key kinds whose history can be fetched live. */
  connectorKinds(): KindName[] {
    return Object.keys(this.connectors) as KindName[];
  }

  remove(id: string): Promise<boolean> {
    return this.store.imports.remove(id);
  }

  private async fetchLive(kind: KindName, key: string): Promise<Array<{ where: string; record: Record<string, unknown> }>> {
    const connector = this.connectors[kind];
    if (!connector) throw invalidRequest(`No connector is configured for ${kind} keys; upload an export of the history instead.`, 'fetch');
    try {
      const records = await connector.fetchHistory(key, CONNECTOR_DAYS);
      return records.map((record, index) => ({ where: `fetched row ${index + 1}`, record }));
    } catch (error) {
      if (error instanceof ConnectorError) {
        throw error.refused
          ? invalidRequest(`Fetching the history failed: ${error.message}.`, 'key')
          : new GatewayError(502, `Fetching the history failed: ${error.message}.`);
      }
      throw error;
    }
  }

  private async describe(key: ImportedKey, withDaily: boolean): Promise<Record<string, unknown>> {
    const rows = await this.store.imports.history(key.id);
    const projection = projectSavings(rows, this.catalogue);
    const kind = KIND_NAMES[key.kind];
    return {
      id: key.id,
      object: 'import',
      kind,
      prefix: key.kind,
      kind_description: IMPORTABLE_PREFIXES[key.kind],
      key: `${key.kind}…${key.last4}`,
      fingerprint: `sha256:${key.fingerprint.slice(0, 16)}`,
      label: key.label,
      connector: Boolean(this.connectors[kind]),
      created_at: new Date(key.createdAt).toISOString(),
      updated_at: new Date(key.updatedAt).toISOString(),
      history: { rows: rows.length, from: projection.from, to: projection.to, days: projection.days, unknown_models: projection.unknownModels },
      projection: {
        output_tokens: projection.outputTokens,
        paid_elsewhere_usd: formatUsd(projection.paidElsewhereNanos),
        list_cost_usd: formatUsd(projection.listNanos),
        charged_cost_usd: formatUsd(projection.chargedNanos),
        savings_usd: formatUsd(projection.savingsNanos),
        monthly_savings_usd: formatUsd(projection.monthlySavingsNanos),
        per_model: projection.perModel.map((m) => ({
          model: m.model,
          output_tokens: m.outputTokens,
          list_cost_usd: formatUsd(m.listNanos),
          charged_cost_usd: formatUsd(m.chargedNanos),
          savings_usd: formatUsd(m.savingsNanos),
        })),
        assumptions: PROJECTION_ASSUMPTIONS,
      },
      ...(withDaily
        ? {
            daily: rows.map((r) => ({
              date: r.day,
              model: r.modelRaw,
              model_id: r.modelId,
              input_tokens: r.inputTokens,
              output_tokens: r.outputTokens,
              cost_usd: formatUsd(r.costNanos),
            })),
          }
        : {}),
    };
  }
}
