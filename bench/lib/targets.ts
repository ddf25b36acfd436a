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
   * Another checkout's built gateway (`--against`), on SQLite with one worker, measured in the
   * same rounds as this tree's: its root, and a short name (its commit) for the headings.
   */
  checkout?: Checkout;
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
export function gatewayVariants(store: StoreKind, workers: number, against: Checkout | null = null): GatewayVariant[] {
  const stores: StoreKind[] = store === 'postgres' ? ['sqlite', 'postgres'] : ['sqlite'];
  const counts = workers > 1 ? [1, workers] : [1];
  const mine: GatewayVariant[] = stores.flatMap((s) => counts.map((w) => ({ store: s, workers: w })));
  return against ? [...mine, { ...BASELINE, checkout: against }] : mine;
}

const isBaseline = (variant: GatewayVariant): boolean =>
  variant.store === BASELINE.store && variant.workers === BASELINE.workers && !variant.checkout;

function gatewayTarget(variant: GatewayVariant, alone: boolean): Target {
  if (variant.checkout) return { id: 'gateway-against', kind: 'gateway', label: `gw ${variant.checkout.name}`, variant };
  const store = variant.store === 'sqlite' ? '' : `-${variant.store}`;
  const workers = variant.workers === 1 ? '' : `-w${variant.workers}`;
  // Alone, the baseline keeps the plain heading of the original report.
  const label = alone ? 'gateway' : `gw ${variant.store}${variant.workers === 1 ? '' : ` ×${variant.workers}`}`;
  return { id: `gateway${store}${workers}`, kind: 'gateway', label, variant };
}

/** The targets in the order each round measures them. */
export function targetsOf(variants: readonly GatewayVariant[], withFloor: boolean): Target[] {
  return [
    { id: 'direct', kind: 'direct', label: 'direct' },
    ...(withFloor ? [{ id: 'floor', kind: 'floor' as const, label: 'floor' }] : []),
    ...variants.map((variant) => gatewayTarget(variant, variants.length === 1)),
  ];
}

export const gatewaysOf = (targets: readonly Target[]): Target[] => targets.filter((target) => target.kind === 'gateway');

/** The baseline among the targets (there always is one). */
export function baselineOf(targets: readonly Target[]): Target {
  const found = targets.find((target) => target.variant && isBaseline(target.variant));
  if (!found) throw new Error('bench: no baseline gateway among the targets');
  return found;
}
