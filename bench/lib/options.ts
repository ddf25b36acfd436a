import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { STORES, type StoreKind } from './targets.js';

/** The command line of `npm run bench -- …`. */
export interface BenchOptions {
  quick: boolean;
  soak: boolean;
  profile: boolean;
  /** `postgres`: the gateway on PostgreSQL beside the one on SQLite. */
  store: StoreKind;
  /** > 1: each gateway also with this many workers, beside one. */
  workers: number;
  /** Another checkout's root whose built gateway runs beside this tree's, in the same rounds; or null. */
  against: string | null;
}

export const USAGE = 'use --quick, --soak, --profile, --store sqlite|postgres, --workers N, --against DIR';

/** Parses the arguments; throws a one-line message for anything else. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      soak: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      store: { type: 'string', default: 'sqlite' },
      workers: { type: 'string', default: '1' },
      against: { type: 'string' },
    },
  });
  const store = values.store as StoreKind;
  if (!STORES.includes(store)) throw new Error(`--store ${values.store}: ${USAGE}`);
  const workers = Number(values.workers);
  if (!/^\d+$/.test(values.workers) || workers < 1 || workers > 64) throw new Error(`--workers ${values.workers}: a whole number from 1 to 64`);
  if (values.soak && (store !== 'sqlite' || workers !== 1 || values.against)) throw new Error('--soak measures the one default gateway; --store, --workers and --against are for the comparison');
  const against = values.against === undefined ? null : resolve(values.against);
  if (against && !existsSync(resolve(against, 'dist/src/main.js'))) throw new Error(`--against ${values.against}: no built gateway there (run npm ci && npm run build in it)`);
  return { quick: values.quick, soak: values.soak, profile: values.profile, store, workers, against };
}
