import type { Catalogue } from '../catalogue/catalogue.js';
import { formatUsd, parseUsd } from '../catalogue/money.js';
import type { Clock } from '../clock.js';
import { invalidRequest } from '../http/errors.js';
import type { KeyPatch, KeyRecord, Store } from '../store/store.js';
import { generateNativeKey, hashSecret, truncateKey } from './key-material.js';

/** Status shown to operators: the stored one, or `expired` once `expires_at` has passed. */
export type EffectiveStatus = 'active' | 'revoked' | 'expired';

export function effectiveStatus(key: KeyRecord, now: number): EffectiveStatus {
  if (key.status === 'revoked') return 'revoked';
  if (key.expiresAt !== null && now >= key.expiresAt) return 'expired';
  return 'active';
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The admin API's view of a key; `value` is the full key, present only when just minted. */
export function keyJson(key: KeyRecord, now: number, value?: string): Record<string, unknown> {
  return {
    id: key.id,
    object: 'api_key',
    name: key.name,
    key: value ?? key.display,
    models: key.models,
    monthly_ceiling_usd: key.monthlyCeilingNanos === null ? null : formatUsd(key.monthlyCeilingNanos),
    monthly_upstream_limit_usd: key.monthlyUpstreamLimitNanos === null ? null : formatUsd(key.monthlyUpstreamLimitNanos),
    rpm_limit: key.rpmLimit,
    cache_ttl_s: key.cacheTtlS,
    status: effectiveStatus(key, now),
    created_at: iso(key.createdAt),
    updated_at: iso(key.updatedAt),
    expires_at: iso(key.expiresAt),
    revoked_at: iso(key.revokedAt),
    rotated_at: iso(key.rotatedAt),
    // A rotated key's previous value still works until then (null once the grace is over).
    previous_valid_until: key.status === 'active' && key.previousValidUntil !== null && key.previousValidUntil > now ? iso(key.previousValidUntil) : null,
  };
}

/** How long a value replaced by a rotation keeps working (spec: a 24-hour grace window). */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** Settings of a key as the admin API takes them (already shape-checked by its schema). */
export interface KeySettingsInput {
  name?: string;
  models?: string[] | null;
  monthly_ceiling_usd?: string | null;
  /** The most the key's calls may cost the operator upstream (at the vendors' list prices) per month. */
  monthly_upstream_limit_usd?: string | null;
  expires_at?: string | null;
  /** Requests per minute: a positive cap, 0 for none, null for the gateway's default. */
  rpm_limit?: number | null;
  /** Seconds the response cache keeps the key's answers: 0 or null for off. */
  cache_ttl_s?: number | null;
}

export class KeyService {
  constructor(
    private readonly store: Store,
    private readonly catalogue: Catalogue,
    private readonly clock: Clock,
  ) {}

  /** Mints a key; returns the record and the full value, which is never stored or shown again. */
  async create(input: KeySettingsInput & { name: string }): Promise<{ key: KeyRecord; value: string }> {
    const settings = this.toPatch(input);
    const value = generateNativeKey();
    const key = await this.store.keys.create({
      name: input.name,
      models: settings.models ?? null,
      monthlyCeilingNanos: settings.monthlyCeilingNanos ?? null,
      monthlyUpstreamLimitNanos: settings.monthlyUpstreamLimitNanos ?? null,
      expiresAt: settings.expiresAt ?? null,
      rpmLimit: settings.rpmLimit ?? null,
      cacheTtlS: settings.cacheTtlS ?? null,
      valueHash: hashSecret(value),
      display: truncateKey(value),
      now: this.clock.now(),
    });
    return { key, value };
  }

  update(id: string, input: KeySettingsInput): Promise<KeyRecord | undefined> {
    return this.store.keys.update(id, this.toPatch(input), this.clock.now());
  }

  revoke(id: string): Promise<KeyRecord | undefined> {
    return this.store.keys.revoke(id, this.clock.now());
  }

  /**
   * Mints a new value for a key, keeping its id (so its ledger, usage and ceiling carry over)
   * and settings. The value it replaces works for ROTATION_GRACE_MS more; a value replaced by
   * an earlier rotation keeps its own end (docs/api-contract.md#keys: never extended).
   */
  async rotate(id: string): Promise<{ key: KeyRecord; value: string; previousValidUntil: number } | undefined> {
    const existing = await this.store.keys.get(id);
    if (!existing) return undefined;
    if (existing.status === 'revoked') throw invalidRequest(`The key '${id}' is revoked; a revoked key cannot be rotated.`, 'id');
    const value = generateNativeKey();
    const now = this.clock.now();
    const previousValidUntil = now + ROTATION_GRACE_MS;
    const key = await this.store.keys.rotate(id, { valueHash: hashSecret(value), display: truncateKey(value), now, previousValidUntil });
    return key && { key, value, previousValidUntil };
  }

  /** Validates values the schema cannot (model IDs, amounts, instants) and normalises them. */
  private toPatch(input: KeySettingsInput): KeyPatch {
    const patch: KeyPatch = {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.models !== undefined) patch.models = input.models === null ? null : this.canonicalModels(input.models);
    if (input.monthly_ceiling_usd !== undefined) patch.monthlyCeilingNanos = this.amount(input.monthly_ceiling_usd, 'monthly_ceiling_usd');
    if (input.monthly_upstream_limit_usd !== undefined) {
      patch.monthlyUpstreamLimitNanos = this.amount(input.monthly_upstream_limit_usd, 'monthly_upstream_limit_usd');
    }
    if (input.expires_at !== undefined) patch.expiresAt = input.expires_at === null ? null : this.instant(input.expires_at);
    if (input.rpm_limit !== undefined) patch.rpmLimit = input.rpm_limit;
    if (input.cache_ttl_s !== undefined) patch.cacheTtlS = input.cache_ttl_s;
    return patch;
  }

  private canonicalModels(ids: string[]): string[] {
    const canonical = new Set<string>();
    for (const id of ids) {
      const model = this.catalogue.resolve(id);
      if (!model) throw invalidRequest(`Unknown model '${id}' in models; GET /v1/models lists the available models.`, 'models');
      canonical.add(model.id);
    }
    return [...canonical];
  }

  /** A dollar amount in nano-dollars, or null (clears the setting). */
  private amount(text: string | null, field: string): number | null {
    if (text === null) return null;
    try {
      return parseUsd(text);
    } catch {
      throw invalidRequest(`${field} must be a decimal dollar amount such as "50.00", got ${JSON.stringify(text)}.`, field);
    }
  }

  private instant(text: string): number {
    const ms = Date.parse(text);
    if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(text)) {
      throw invalidRequest(`expires_at must be an ISO 8601 instant such as "2026-12-31T23:59:59Z", got ${JSON.stringify(text)}.`, 'expires_at');
    }
    return ms;
  }
}
