/** The JSON Schema of `config/gateway.yaml` and the TypeScript shape it guarantees. */

import { PARAMETER_POLICIES, type ParameterPolicy } from '../chain/adjustments.js';

export interface UpstreamConfig {
  /** Origin (with optional path prefix) under which the vendor's own paths live; never ends in /v1. */
  base_url: string;
  /** Vendor credential; prefer the env override (`GAMMA_API_KEY` …). No key → built-in simulator. */
  api_key?: string;
}

/** One deployment of a family's list form (docs/deployments.md#configuration). */
export interface DeploymentConfig {
  /** Unique within the family: the `deployment` label of metrics and the ledger. */
  name: string;
  base_url: string;
  /** The environment variable holding this deployment's credential (never the credential itself). */
  api_key_env?: string;
  /** Settled from `api_key_env` at load (not a setting of the file). */
  api_key?: string;
  weight: number;
  /** The vendor limits of this credential, per minute, kept across instances. */
  rpm?: number;
  tpm?: number;
  /** Catalogue ids this deployment serves; all of the family's when absent. */
  models?: string[];
}

/** `upstream_health`: when a failing deployment is cooled down (src/upstreams/health.ts). */
export interface UpstreamHealthConfig {
  fails: number;
  window_s: number;
  cooldown_s: number;
}

export interface PluginEntry {
  name: string;
  enabled: boolean;
  config: Record<string, unknown>;
  /** Folder of a plugin kept outside `plugins/`, relative to the config file. */
  path?: string;
}

/** The listener and the instance: where it listens, its name, and its bounds on callers (timeouts, connections). */
export interface ServerConfig {
  host: string;
  port: number;
  max_body_bytes: number;
  /** All request bodies of calls in progress together; a body that finds no room within 2 s is a 503. */
  max_body_bytes_held: number;
  shutdown_grace_ms: number;
  /** This process's name in the store; its spend reservations are released when it starts again. */
  instance_id: string;
  /** How long a spend reservation outlives its instance (renewed every quarter of it while the call runs). */
  lease_ms: number;
  /** CIDRs whose X-Forwarded-For is believed (src/http/client-address.ts). */
  trusted_proxies: string[];
  /** Until a request's headers are in (slow-header clients are answered 408 and closed). */
  headers_timeout_ms: number;
  /** Until the whole request (headers and body) is in. */
  request_timeout_ms: number;
  /** How long an idle kept-alive connection stays open between requests. */
  keep_alive_timeout_ms: number;
  /** Connections held at once, from every caller together; more are closed on arrival. */
  max_connections: number;
  /** Processes serving the port (src/cluster); `auto` = the machine's cores. */
  workers: number | 'auto';
  /** The bounds of WebSocket connections (docs/configuration.md#websocket-mode). */
  websocket: WebSocketConfig;
}

/** The bounds of a WebSocket connection (src/http/websocket/). */
export interface WebSocketConfig {
  /** Connections one key may hold open at once (per process); more are refused 429 at the upgrade. */
  max_connections_per_key: number;
  /** How long a connection may stay without a message (none in flight) before it is closed. */
  idle_timeout_ms: number;
  /** How long a connection may stay open in all (then `websocket_connection_limit_reached`). */
  max_connection_ms: number;
  /** Messages one connection may send (then an error and the close). */
  max_messages: number;
  /** The largest message (larger: the close, code 1009). */
  max_message_bytes: number;
  /** What may wait to be sent to a slow reader before the answer's reading pauses. */
  max_buffered_bytes: number;
}

export interface GatewayConfig {
  server: ServerConfig;
  /**
   * `url` (postgres:// or postgresql://) selects PostgreSQL; without it, the SQLite file at `path`
   * (src/store/open-store.ts). `timeout_ms`: how long a call may wait for the database before it
   * answers 503 — PostgreSQL: opening a connection, and each query (default 10 s); SQLite: a
   * write lock another process holds (default 5 s).
   */
  database: { path: string; url?: string; timeout_ms?: number };
  /** Path of the model catalogue, relative to the config file. */
  catalogue: string;
  log: { level: string };
  admin: { token?: string };
  /** One entry per family an enabled vendor plugin declares (filled from its defaults and env; see src/vendors). */
  upstreams: Record<string, UpstreamConfig | DeploymentConfig[]>;
  upstream_health: UpstreamHealthConfig;
  timeouts: { upstream_ms: number; stream_idle_ms: number; connect_ms: number };
  retry: { max: number };
  /**
   * Caller headers forwarded to upstreams: exact names, or prefixes ending in `*`. Nothing else
   * is, and never a credential, cookie or hop-by-hop header, whatever this list says.
   */
  forwarded_caller_headers: string[];
  /** What happens to a parameter that can only be honoured approximately (src/chain/adjustments.ts). */
  parameters: ParameterPolicy;
  /** Live fetchers of imported keys' usage history, by key kind (see src/imports/connectors.ts). */
  imports: { connectors: { aggregator?: { base_url: string } } };
  plugins: PluginEntry[];
}

export const upstreamSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['base_url'],
  properties: {
    base_url: { type: 'string', pattern: '^https?://', not: { pattern: '/v1/?$' } },
    api_key: { type: 'string', minLength: 1 },
  },
} as const;

const positiveInt = { type: 'integer', minimum: 1 } as const;

/** The list form of `upstreams.<family>`: up to 64 deployments. */
export const deploymentListSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 64,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'base_url'],
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
      base_url: upstreamSchema.properties.base_url,
      api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
      weight: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000, default: 1 },
      rpm: positiveInt,
      tpm: positiveInt,
      models: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    },
  },
} as const;

export const gatewayConfigSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['plugins'],
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        host: { type: 'string', minLength: 1, default: '127.0.0.1' },
        port: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
        max_body_bytes: { ...positiveInt, default: 20 * 1024 * 1024 },
        max_body_bytes_held: { ...positiveInt, default: 256 * 1024 * 1024 },
        shutdown_grace_ms: { type: 'integer', minimum: 0, default: 10_000 },
        instance_id: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$', default: 'default' },
        headers_timeout_ms: { ...positiveInt, default: 10_000 },
        request_timeout_ms: { ...positiveInt, default: 60_000 },
        keep_alive_timeout_ms: { ...positiveInt, default: 5_000 },
        max_connections: { ...positiveInt, default: 10_000 },
        workers: { anyOf: [{ type: 'integer', minimum: 1, maximum: 256 }, { const: 'auto' }], default: 1 },
        lease_ms: { type: 'integer', minimum: 1000, maximum: 3_600_000, default: 120_000 },
        trusted_proxies: { type: 'array', default: [], maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 64 } },
        websocket: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            max_connections_per_key: { ...positiveInt, default: 16 },
            idle_timeout_ms: { ...positiveInt, default: 300_000 },
            max_connection_ms: { ...positiveInt, default: 3_600_000 },
            max_messages: { ...positiveInt, default: 10_000 },
            max_message_bytes: { ...positiveInt, default: 20 * 1024 * 1024 },
            max_buffered_bytes: { ...positiveInt, default: 1024 * 1024 },
          },
        },
      },
    },
    database: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        path: { type: 'string', minLength: 1, default: 'data/gateway.db' },
        url: { type: 'string', pattern: '^postgres(ql)?://' },
        timeout_ms: { type: 'integer', minimum: 100, maximum: 600_000 },
      },
    },
    catalogue: { type: 'string', minLength: 1, default: 'models.yaml' },
    log: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        level: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
      },
    },
    admin: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { token: { type: 'string', minLength: 16 } },
    },
    // Which families may appear is decided by the enabled vendor plugins (src/vendors/upstreams.ts).
    // Each entry is checked in its form, single or list, by src/vendors/upstreams.ts (errors name the entry's path).
    upstreams: { type: 'object', default: {}, additionalProperties: { type: ['object', 'array'] } },
    upstream_health: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        fails: { ...positiveInt, default: 3 },
        window_s: { ...positiveInt, default: 30 },
        cooldown_s: { ...positiveInt, default: 30 },
      },
    },
    timeouts: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        upstream_ms: { ...positiveInt, default: 60_000 },
        stream_idle_ms: { ...positiveInt, default: 120_000 },
        connect_ms: { ...positiveInt, default: 10_000 },
      },
    },
    retry: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { max: { type: 'integer', minimum: 0, maximum: 4, default: 2 } },
    },
    forwarded_caller_headers: {
      type: 'array',
      items: { type: 'string', pattern: '^[a-z0-9-]+\\*?$' },
      default: ['user-agent', 'x-stainless-*'],
    },
    parameters: { enum: PARAMETER_POLICIES, default: 'lenient' },
    imports: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        connectors: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            aggregator: {
              type: 'object',
              additionalProperties: false,
              required: ['base_url'],
              properties: { base_url: { type: 'string', pattern: '^https?://' } },
            },
          },
        },
      },
    },
    plugins: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
          enabled: { type: 'boolean', default: true },
          config: { type: 'object', default: {} },
          path: { type: 'string', minLength: 1 },
        },
      },
    },
  },
} as const;
