import { availableParallelism } from 'node:os';
import type { Registry } from 'prom-client';
import type { GatewayConfig, UpstreamConfig } from '../config/schema.js';
import { ValidationError } from '../config/validate.js';

/**
 * What the primary and its workers (GATEWAY_WORKERS > 1) agree on: the environment a worker is
 * forked with, its instance id, and the IPC messages between them.
 */

/** The worker's slot, 1…N: stable across replacements, so a replaced worker takes its predecessor's instance id. */
export const WORKER_SLOT_ENV = 'GATEWAY_WORKER_SLOT';
/** JSON `{ family: base URL }` of the simulators the primary started for families without a credential. */
export const WORKER_SIMULATORS_ENV = 'GATEWAY_WORKER_SIMULATORS';

/** `server.workers` as a count: `auto` is the cores this process may use. */
export function workerCount(config: GatewayConfig): number {
  const setting = config.server.workers;
  return setting === 'auto' ? availableParallelism() : setting;
}

/** The worker's slot from its environment, or null when this process is not a worker forked by our primary. */
export function workerSlot(env: Readonly<Record<string, string | undefined>>, isWorker: boolean): number | null {
  const raw = env[WORKER_SLOT_ENV];
  // Only with both: a process manager's own cluster (pm2 …) forks workers that are not ours.
  return isWorker && raw !== undefined && /^[1-9]\d*$/.test(raw) ? Number(raw) : null;
}

/** The value of WORKER_SIMULATORS_ENV: each simulated family's base URL, which the primary set in `config`. */
export function simulatorsEnv(config: GatewayConfig, families: readonly string[]): string {
  return JSON.stringify(Object.fromEntries(families.map((family) => [family, singleUpstream(config, family)?.base_url])));
}

/** A family's upstream in the single form (the only form a simulator stands in for), or undefined. */
function singleUpstream(config: GatewayConfig, family: string): UpstreamConfig | undefined {
  const upstream = config.upstreams[family];
  return Array.isArray(upstream) ? undefined : upstream;
}

/** In a worker: points each family the primary simulates at the primary's simulator; returns those families. */
export function adoptSimulators(config: GatewayConfig, raw: string | undefined): string[] {
  const urls = JSON.parse(raw ?? '{}') as Record<string, string>;
  const families: string[] = [];
  for (const [family, url] of Object.entries(urls)) {
    const upstream = singleUpstream(config, family);
    if (!upstream) continue;
    upstream.base_url = url;
    families.push(family);
  }
  return families;
}

/** A worker's instance id: the configured one with `-w<slot>`, so every worker holds its own reservations. */
export const workerInstanceId = (base: string, slot: number): string => `${base}-w${slot}`;

/** The longest instance id the schema takes (src/config/schema.ts). */
const INSTANCE_ID_MAX = 100;

/** Before forking: every worker's instance id must be a valid one, or the start stops with one line. */
export function checkWorkerInstanceIds(config: GatewayConfig, file: string, workers: number): void {
  const longest = workerInstanceId(config.server.instance_id, workers);
  if (longest.length > INSTANCE_ID_MAX) {
    const room = INSTANCE_ID_MAX - (longest.length - config.server.instance_id.length);
    throw new ValidationError(file, '/server/instance_id', `must be at most ${room} characters with ${workers} workers (each adds -w<k>)`);
  }
}

/** One registry's metrics as prom-client's `getMetricsAsJSON()` gives them (what its aggregator sums). */
export type RegistryJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** A worker tells the primary that its gateway listens. */
export interface ListeningMessage {
  type: 'gateway:listening';
  origin: string;
}

/** The primary asks a worker for its registry's metrics (prom-client's JSON form). */
export interface CollectMessage {
  type: 'gateway:collect';
  id: number;
}

export interface CollectedMessage {
  type: 'gateway:collected';
  id: number;
  metrics?: RegistryJson;
  error?: string;
}

/** A worker that took GET /metrics asks the primary for the whole group's text. */
export interface ScrapeMessage {
  type: 'gateway:scrape';
  id: number;
}

export interface ScrapedMessage {
  type: 'gateway:scraped';
  id: number;
  text?: string;
  error?: string;
}

export type ClusterMessage = ListeningMessage | CollectMessage | CollectedMessage | ScrapeMessage | ScrapedMessage;

const TYPES: ReadonlySet<string> = new Set(['gateway:listening', 'gateway:collect', 'gateway:collected', 'gateway:scrape', 'gateway:scraped']);

/** Ours, as opposed to Node's own cluster messages (or anyone else's) on the same channel. */
export function isClusterMessage(message: unknown): message is ClusterMessage {
  return typeof message === 'object' && message !== null && TYPES.has(String((message as { type?: unknown }).type));
}
