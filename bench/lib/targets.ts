/**
 * What a comparison measures: direct (the simulator), the floor, and one or more gateways. The
 * first gateway, on SQLite with one worker, is the baseline; `--store postgres` adds the same
 * gateway on PostgreSQL and `--workers N` each of them with N workers, all in the same run.
 */

export type StoreKind = 'sqlite' | 'postgres';
export const STORES: readonly StoreKind[] = ['sqlite', 'postgres'];

export interface GatewayVariant {
  store: StoreKind;
  workers: number;
  /**
   * Another checkout's built gateway (`--against`, repeatable), on SQLite with one worker, measured in the
   * same rounds as this tree's: its root, and a short name (its commit) for the headings.
   */
  checkout?: Checkout;
  /** `--deployments N`: each family's upstream as N deployments (weights 2:1:…), all on the bench's simulators; absent: the single form. */
  deployments?: number;
  /** `--telemetry`: OpenTelemetry on, exporting over OTLP/HTTP to the bench's sink (bench/servers/otlp-sink.ts). */
  telemetry?: boolean;
}

/** The gateways a run adds beside this tree's on SQLite with one worker. */
export interface ExtraGateways {
  /** > 1: one more with each family's upstream as this many deployments. */
  deployments?: number;
  /** One more with telemetry on. */
  telemetry?: boolean;
}

export interface Checkout {
  dir: string;
  name: string;
}

export type TargetKind = 'direct' | 'floor' | 'gateway';

export interface Target {
  /** Stable id (the raw JSON, the table): `direct`, `floor`, `gateway`, `gateway-postgres`, `gateway-w2` … */
  id: string;
  kind: TargetKind;
  /** Column heading. */
  label: string;
  /** The gateway's store and workers (gateways only). */
  variant?: GatewayVariant;
}

/** The baseline gateway: the default configuration. */
export const BASELINE: GatewayVariant = { store: 'sqlite', workers: 1 };

/** The gateways of a run, the baseline first. */
export function gatewayVariants(store: StoreKind, workers: number, against: readonly Checkout[] = [], extra: ExtraGateways = {}): GatewayVariant[] {
  const stores: StoreKind[] = store === 'postgres' ? ['sqlite', 'postgres'] : ['sqlite'];
  const counts = workers > 1 ? [1, workers] : [1];
  const mine: GatewayVariant[] = stores.flatMap((s) => counts.map((w) => ({ store: s, workers: w })));
  const deployments = extra.deployments ?? 1;
  const spread: GatewayVariant[] = deployments > 1 ? [{ ...BASELINE, deployments }] : [];
  const traced: GatewayVariant[] = extra.telemetry ? [{ ...BASELINE, telemetry: true }] : [];
  return [...mine, ...spread, ...traced, ...against.map((checkout) => ({ ...BASELINE, checkout }))];
}

/** This tree's gateway in one of the forms `--store` and `--workers` compare (no checkout, deployments or telemetry). */
const isPlain = (variant: GatewayVariant): boolean => !variant.checkout && !variant.deployments && !variant.telemetry;

const isBaseline = (variant: GatewayVariant): boolean => variant.store === BASELINE.store && variant.workers === BASELINE.workers && isPlain(variant);

function gatewayTarget(variant: GatewayVariant, alone: boolean, checkoutNumber: number): Target {
  if (variant.telemetry) return { id: 'gateway-otel', kind: 'gateway', label: 'gw telemetry on', variant };
  if (variant.deployments) {
    return { id: `gateway-d${variant.deployments}`, kind: 'gateway', label: `gw ${variant.deployments} deployments`, variant };
  }
  if (variant.checkout) {
    // The first checkout keeps the id of a run with one.
    const id = checkoutNumber === 1 ? 'gateway-against' : `gateway-against-${checkoutNumber}`;
    return { id, kind: 'gateway', label: `gw ${variant.checkout.name}`, variant };
  }
  const store = variant.store === 'sqlite' ? '' : `-${variant.store}`;
  const workers = variant.workers === 1 ? '' : `-w${variant.workers}`;
  // Alone, the baseline keeps the plain heading of the original report.
  const label = alone ? 'gateway' : `gw ${variant.store}${variant.workers === 1 ? '' : ` ×${variant.workers}`}`;
  return { id: `gateway${store}${workers}`, kind: 'gateway', label, variant };
}

/** The targets in the order each round measures them. */
export function targetsOf(variants: readonly GatewayVariant[], withFloor: boolean): Target[] {
  let checkouts = 0;
  return [
    { id: 'direct', kind: 'direct', label: 'direct' },
    ...(withFloor ? [{ id: 'floor', kind: 'floor' as const, label: 'floor' }] : []),
    ...variants.map((variant) => gatewayTarget(variant, variants.length === 1, variant.checkout ? ++checkouts : 0)),
  ];
}

/**
 * The targets in the order round `round` (from 1) measures them: direct and the floor first, then
 * the gateways rotated by one place each round, so no gateway always runs right after the
 * floor (or always last) — an order effect would otherwise fall on the same gateway every round.
 */
export function roundOrder(targets: readonly Target[], round: number): Target[] {
  const others = targets.filter((target) => target.kind !== 'gateway');
  const gateways = gatewaysOf(targets);
  const shift = gateways.length ? (round - 1) % gateways.length : 0;
  return [...others, ...gateways.slice(shift), ...gateways.slice(0, shift)];
}

export const gatewaysOf = (targets: readonly Target[]): Target[] => targets.filter((target) => target.kind === 'gateway');

/** The baseline among the targets (there always is one). */
export function baselineOf(targets: readonly Target[]): Target {
  const found = targets.find((target) => target.variant && isBaseline(target.variant));
  if (!found) throw new Error('bench: no baseline gateway among the targets');
  return found;
}

export interface Pair {
  /** What is compared (first) with what (second). */
  subject: Target;
  base: Target;
  what: string;
  /** Whether the PostgreSQL targets apply. */
  judged: boolean;
}

/**
 * The pairs of gateways a run compares, each once (subject ÷ base): PostgreSQL ÷ SQLite (same
 * workers; judged by the issue's targets), N workers ÷ 1 (same store), this tree ÷ each
 * `--against` checkout, each checkout ÷ every checkout given after it, N deployments ÷ 1 and
 * telemetry on ÷ off.
 */
export function gatewayPairs(gateways: readonly Target[]): Pair[] {
  const find = (store: string, workers: number): Target | undefined =>
    gateways.find((g) => g.variant?.store === store && g.variant.workers === workers && isPlain(g.variant));
  const result: Pair[] = [];
  for (const subject of gateways) {
    const variant = subject.variant;
    if (!variant) continue;
    if (variant.deployments || variant.telemetry) {
      const mine = find('sqlite', 1);
      const what = variant.telemetry ? 'telemetry on ÷ off' : `${variant.deployments} deployments ÷ 1`;
      if (mine) result.push({ subject, base: mine, what, judged: false });
      continue;
    }
    if (variant.checkout) {
      const mine = find('sqlite', 1);
      if (mine) result.push({ subject: mine, base: subject, what: `this tree ÷ ${variant.checkout.name}`, judged: false });
      // Checkouts listed earlier against this one (--against NEW --against OLD: NEW ÷ OLD).
      for (const earlier of gateways.slice(0, gateways.indexOf(subject))) {
        const name = earlier.variant?.checkout?.name;
        if (name) result.push({ subject: earlier, base: subject, what: `${name} ÷ ${variant.checkout.name}`, judged: false });
      }
      continue;
    }
    const sqlite = variant.store === 'postgres' ? find('sqlite', variant.workers) : undefined;
    if (sqlite) result.push({ subject, base: sqlite, what: 'PostgreSQL ÷ SQLite', judged: true });
    const one = variant.workers > 1 ? find(variant.store, 1) : undefined;
    if (one) result.push({ subject, base: one, what: `${variant.workers} workers ÷ 1`, judged: false });
  }
  return result;
}
