import type { Logger } from 'pino';
import type { GatewayConfig } from './config/schema.js';
import type { KeyService } from './keys/key-service.js';
import { hashSecret, randomToken } from './keys/key-material.js';
import type { Store } from './store/store.js';

const BOOTSTRAPPED = 'bootstrapped_at';
export const ADMIN_TOKEN_SETTING = 'admin_token_sha256';

export interface BootstrapSecrets {
  adminToken?: string;
  firstKey?: string;
}

/**
 * First start on an empty database with no GATEWAY_ADMIN_TOKEN (docs/api-contract.md#admin-api): mint an admin
 * token (only its hash is kept) and a first `sl-` key, and return them to be shown once. An
 * operator who configured a token creates keys through the admin API: nothing is minted, and
 * no secret reaches the terminal (or the log files it is piped to). Later starts return nothing.
 *
 * Instances started together on one empty database race for an atomic claim of the token's
 * setting (insert if absent): one wins and mints; the others mint nothing and read the
 * winner's hash, already committed when their claim failed. A crash between the claim and the
 * first key leaves a database with a token no one saw: start with GATEWAY_ADMIN_TOKEN then.
 */
export async function bootstrap(store: Store, keys: KeyService, configuredAdminToken: string | undefined, now: number): Promise<BootstrapSecrets> {
  if (configuredAdminToken) return {};
  if ((await store.settings.get(BOOTSTRAPPED)) !== undefined || (await store.keys.count()) > 0) return {};
  const adminToken = `gwadmin-${randomToken(40)}`;
  if (!(await store.settings.claim(ADMIN_TOKEN_SETTING, hashSecret(adminToken).toString('hex')))) return {};
  const firstKey = (await keys.create({ name: 'first key' })).value;
  await store.settings.set(BOOTSTRAPPED, new Date(now).toISOString());
  return { adminToken, firstKey };
}

/** The admin token's digest: the configured token wins; else the one minted at first start. */
export async function adminTokenHash(store: Store, configuredAdminToken: string | undefined): Promise<Buffer | null> {
  if (configuredAdminToken) return hashSecret(configuredAdminToken);
  const stored = await store.settings.get(ADMIN_TOKEN_SETTING);
  return stored ? Buffer.from(stored, 'hex') : null;
}

/**
 * What a start does once, before serving: the first start's secrets (bootstrap) and a warning
 * when /admin/v1 has no token at all. Run by the gateway process, or by the primary of several
 * workers (so the banner is printed once).
 */
export async function firstStart(store: Store, keys: KeyService, config: GatewayConfig, log: Logger, now: number): Promise<BootstrapSecrets> {
  const secrets = await bootstrap(store, keys, config.admin.token, now);
  if (!(await adminTokenHash(store, config.admin.token))) log.warn('no admin token: set GATEWAY_ADMIN_TOKEN to use /admin/v1');
  return secrets;
}

export function bootstrapBanner(secrets: BootstrapSecrets, origin: string): string {
  const lines = ['', '='.repeat(72), 'First start: these secrets are shown once and never again. Store them now.'];
  if (secrets.adminToken) lines.push(`  Admin token (GATEWAY_ADMIN_TOKEN): ${secrets.adminToken}`);
  if (secrets.firstKey) lines.push(`  First API key:                     ${secrets.firstKey}`);
  lines.push(`  Try: curl ${origin}/v1/chat/completions -H "Authorization: Bearer <key>" \\`);
  lines.push(`         -H "Content-Type: application/json" -d '{"model":"gamma-5.4","messages":[{"role":"user","content":"Hi"}]}'`);
  lines.push('='.repeat(72), '');
  return lines.join('\n');
}
