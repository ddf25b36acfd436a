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
  /** Other checkouts' roots whose built gateways run beside this tree's, in the same rounds (none: empty). */
  against: string[];
  /** The PostgreSQL server on the gateways' cores (see planCores), not on cores of its own. */
  postgresOnServers: boolean;
  /** > 1: also this tree's gateway with each family's upstream as this many deployments. */
  deployments: number;
  /** Also this tree's gateway with OpenTelemetry on, exporting to the bench's OTLP sink. */
  telemetry: boolean;
  /** Only the agent-loop scenario (HTTP beside WebSocket mode), not the comparison. */
  agentLoop: boolean;
  /** Only the agent's-path scenarios (bench/agent-path.ts), not the comparison. */
  agentPath: boolean;
}

export const USAGE =
  'use --quick, --soak, --agent-loop, --agent-path, --profile, --store sqlite|postgres, --postgres-on-servers, --workers N, --deployments N, --telemetry, --against DIR (repeatable)';

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
      deployments: { type: 'string', default: '1' },
      telemetry: { type: 'boolean', default: false },
      against: { type: 'string', multiple: true },
      'postgres-on-servers': { type: 'boolean', default: false },
      'agent-loop': { type: 'boolean', default: false },
      'agent-path': { type: 'boolean', default: false },
    },
  });
  const store = values.store as StoreKind;
  if (!STORES.includes(store)) throw new Error(`--store ${values.store}: ${USAGE}`);
  const postgresOnServers = values['postgres-on-servers'];
  if (postgresOnServers && store !== 'postgres') throw new Error('--postgres-on-servers places the server of --store postgres');
  const workers = Number(values.workers);
  if (!/^\d+$/.test(values.workers) || workers < 1 || workers > 64) throw new Error(`--workers ${values.workers}: a whole number from 1 to 64`);
  const deployments = Number(values.deployments);
  if (!/^\d+$/.test(values.deployments) || deployments < 1 || deployments > 8)
    throw new Error(`--deployments ${values.deployments}: a whole number from 1 to 8`);
  const given = values.against ?? [];
  if ([values.soak, values['agent-loop'], values['agent-path']].filter(Boolean).length > 1)
    throw new Error('--soak, --agent-loop and --agent-path are runs of their own: choose one');
  if (values.soak && (store !== 'sqlite' || workers !== 1 || deployments !== 1 || values.telemetry || given.length))
    throw new Error('--soak measures the one default gateway; --store, --workers and --against are for the comparison');
  const against = given.map((dir) => resolve(dir));
  given.forEach((dir, i) => {
    if (!existsSync(resolve(against[i] as string, 'dist/src/main.js')))
      throw new Error(`--against ${dir}: no built gateway there (run npm ci && npm run build in it)`);
  });
  if (new Set(against).size !== against.length) throw new Error('--against: the same checkout twice');
  return {
    quick: values.quick,
    soak: values.soak,
    profile: values.profile,
    store,
    workers,
    deployments,
    telemetry: values.telemetry,
    against,
    postgresOnServers,
    agentLoop: values['agent-loop'],
    agentPath: values['agent-path'],
  };
}
