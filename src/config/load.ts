import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseRange } from '../net/ip-address.js';
import { gatewayConfigSchema, type GatewayConfig } from './schema.js';
import { compileValidator, ValidationError } from './validate.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface LoadedConfig {
  config: GatewayConfig;
  /** Absolute path of the YAML file the config came from. */
  file: string;
  /** Absolute path of the model catalogue. */
  cataloguePath: string;
  /** Names of the env variables that overrode the file, for the start-up log. */
  overrides: string[];
}

type Coerce = 'int' | 'string' | 'list';

/** Env variable → config path. Env always wins over the file (docs/api-contract.md#environment-knobs). */
const ENV_OVERRIDES: ReadonlyArray<readonly [string, readonly string[], Coerce]> = [
  ['HOST', ['server', 'host'], 'string'],
  ['PORT', ['server', 'port'], 'int'],
  ['GATEWAY_MAX_BODY_BYTES', ['server', 'max_body_bytes'], 'int'],
  ['GATEWAY_MAX_BODY_BYTES_HELD', ['server', 'max_body_bytes_held'], 'int'],
  ['GATEWAY_SHUTDOWN_GRACE_MS', ['server', 'shutdown_grace_ms'], 'int'],
  ['GATEWAY_INSTANCE_ID', ['server', 'instance_id'], 'string'],
  ['GATEWAY_HEADERS_TIMEOUT_MS', ['server', 'headers_timeout_ms'], 'int'],
  ['GATEWAY_REQUEST_TIMEOUT_MS', ['server', 'request_timeout_ms'], 'int'],
  ['GATEWAY_KEEP_ALIVE_TIMEOUT_MS', ['server', 'keep_alive_timeout_ms'], 'int'],
  ['GATEWAY_MAX_CONNECTIONS', ['server', 'max_connections'], 'int'],
  ['GATEWAY_WORKERS', ['server', 'workers'], 'int'],
  ['GATEWAY_LEASE_MS', ['server', 'lease_ms'], 'int'],
  ['GATEWAY_TRUSTED_PROXIES', ['server', 'trusted_proxies'], 'list'],
  ['GATEWAY_DB', ['database', 'path'], 'string'],
  ['GATEWAY_DATABASE_URL', ['database', 'url'], 'string'],
  ['GATEWAY_DATABASE_TIMEOUT_MS', ['database', 'timeout_ms'], 'int'],
  ['LOG_LEVEL', ['log', 'level'], 'string'],
  ['GATEWAY_ADMIN_TOKEN', ['admin', 'token'], 'string'],
  ['GATEWAY_RETRY_MAX', ['retry', 'max'], 'int'],
  ['GATEWAY_PARAMETERS', ['parameters'], 'string'],
  ['GATEWAY_UPSTREAM_TIMEOUT_MS', ['timeouts', 'upstream_ms'], 'int'],
  ['GATEWAY_STREAM_IDLE_TIMEOUT_MS', ['timeouts', 'stream_idle_ms'], 'int'],
  ['GATEWAY_CONNECT_TIMEOUT_MS', ['timeouts', 'connect_ms'], 'int'],
  ['GATEWAY_UPSTREAM_FAILS', ['upstream_health', 'fails'], 'int'],
  ['GATEWAY_UPSTREAM_WINDOW_S', ['upstream_health', 'window_s'], 'int'],
  ['GATEWAY_UPSTREAM_COOLDOWN_S', ['upstream_health', 'cooldown_s'], 'int'],
  ['IMPORT_AGGREGATOR_BASE_URL', ['imports', 'connectors', 'aggregator', 'base_url'], 'string'],
];

const validateConfig = compileValidator<GatewayConfig>(gatewayConfigSchema, 'config');

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (typeof next !== 'object' || next === null) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

/** Integers that do not parse stay strings, so the schema reports them with their path; lists are comma-separated. */
function coerce(raw: string, kind: Coerce): unknown {
  if (kind === 'string') return raw;
  if (kind === 'list')
    return raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  return /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
}

/** Reads the YAML file, applies env overrides, validates and fills defaults. Throws with the bad path named. */
export function loadConfig(file: string, env: Env): LoadedConfig {
  const absolute = resolve(file);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new ValidationError(absolute, '', `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const raw: unknown = parseYaml(text) ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ValidationError(absolute, '/', 'must be a mapping');
  }
  const data = raw as Record<string, unknown>;
  const overrides: string[] = [];
  for (const [name, path, kind] of ENV_OVERRIDES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setPath(data, path, coerce(value, kind));
    overrides.push(name);
  }
  let config: GatewayConfig;
  try {
    config = validateConfig(data);
  } catch (error) {
    if (error instanceof ValidationError) {
      const via = overrides.length ? ` (env overrides applied: ${overrides.join(', ')})` : '';
      throw new ValidationError(absolute, error.path, `${error.detail}${via}`);
    }
    throw error;
  }
  config.server.trusted_proxies.forEach((cidr, i) => {
    if (!parseRange(cidr.trim())) throw new ValidationError(absolute, `/server/trusted_proxies/${i}`, 'must be an IP address or a CIDR range');
  });
  return { config, file: absolute, cataloguePath: resolve(dirname(absolute), config.catalogue), overrides };
}
