import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { AGENT_LOOP, AGENT_LOOP_QUICK, agentLoop, agentLoopReport } from './agent-loop.js';
import { AGENT_PATH, AGENT_PATH_QUICK, agentPath, agentPathReport } from './agent-path.js';
import { compare, type CompareSettings } from './compare.js';
import { comparisonReport, failures } from './report.js';
import { parseBenchOptions, USAGE, type BenchOptions } from './lib/options.js';
import { BENCH_POSTGRES_SETTINGS, coreLines, machine, startBench, stopBench, type Bench } from './lib/setup.js';
import { gatewayVariants } from './lib/targets.js';
import { sinkLine } from './servers/otlp-sink.js';
import { soak, type SoakSettings } from './soak.js';

/**
 * `npm run bench [-- --quick] [--soak] [--agent-loop] [--agent-path] [--profile] [--store postgres [--postgres-on-servers]] [--workers N] [--deployments N] [--telemetry] [--against DIR]…`: builds, then
 * measures the gateway against a bare http-proxy-3 forwarder (the floor) and the simulator itself
 * (direct), on loopback, each server in its own process. See README "Performance".
 *
 *   (default) 3 rounds, 8 s closed-loop and 10 s open-loop runs, then the agent loop and the agent's path: about 30 minutes
 *   --quick   3 short rounds, then the same in short: about 5 minutes, to try it
 *   --store postgres  also the gateway on PostgreSQL (the bench's own throwaway server), beside SQLite
 *   --postgres-on-servers  that server on the gateways' cores instead of cores of its own (see planCores)
 *   --workers N       also each gateway with GATEWAY_WORKERS=N, beside one worker
 *   --deployments N   also this tree's gateway with each family's upstream as N deployments (weights 2:1:…)
 *   --telemetry       also this tree's gateway with OpenTelemetry on (OTEL_EXPORTER_OTLP_ENDPOINT: the bench's OTLP sink)
 *   --against DIR     also the gateway built in another checkout (another commit), in the same rounds; repeatable
 *   --agent-loop  only the agent-loop scenario (agent-loop.ts: HTTP beside WebSocket mode), which the comparison is followed by
 *   --agent-path  only the agent's-path scenarios (agent-path.ts: refusals, body sizes, streamed turns …), which end the default run
 *   --soak    10 minutes at 200 requests/s, the gateway's RSS every 30 s
 *   --soak --quick  the soak's mechanics in one minute
 *   --profile  also write a CPU profile of each gateway (node --cpu-prof; one per worker) to bench/results/
 */

const FULL: CompareSettings = { rounds: 3, closedS: 8, openS: 10, warmS: 2, connections: 32, rate: 200 };
const QUICK: CompareSettings = { rounds: 3, closedS: 1, openS: 1.5, warmS: 0.5, connections: 32, rate: 200 };
const SOAK: SoakSettings = { durationS: 600, sampleS: 30, rate: 200, fromS: 120 };
const SOAK_QUICK: SoakSettings = { durationS: 60, sampleS: 5, rate: 200, fromS: 15 };

const argv = process.argv.slice(2);
let options: BenchOptions;
try {
  options = parseBenchOptions(argv);
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).message} (${USAGE})\n`);
  process.exit(2);
}
const { quick, soak: soaking, profile: profiling, agentLoop: loopOnly, agentPath: pathOnly } = options;
const loopSettings = quick ? AGENT_LOOP_QUICK : AGENT_LOOP;
const pathSettings = quick ? AGENT_PATH_QUICK : AGENT_PATH;
/** The other checkout's commit, for the headings (its folder's name if it is not a git checkout). */
function checkoutName(dir: string): string {
  const git = spawnSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return git.status === 0 ? git.stdout.trim() : basename(dir);
}
const variants = gatewayVariants(
  options.store,
  options.workers,
  options.against.map((dir) => ({ dir, name: checkoutName(dir) })),
  { deployments: options.deployments, telemetry: options.telemetry },
);

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const resultsDir = resolve('bench/results');
mkdirSync(resultsDir, { recursive: true });
const kind = soaking ? 'soak' : 'bench';
const resultFile = resolve(resultsDir, `${kind}-${stamp}${quick ? '-quick' : ''}.txt`);
const logPrefix = resolve(resultsDir, `gateway-${stamp}`);

const progress = (line: string): void => {
  process.stderr.write(`  … ${line}\n`);
};

const box = machine();
const head = [
  `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}   (${new Date().toISOString()})`,
  `machine: ${box.cores} cores, ${box.cpu}, node ${box.node}; load average (1/5/15 min) at start ${box.load()}`,
];
if (variants.some((v) => v.store === 'postgres')) {
  head.push(
    `PostgreSQL: the bench's own throwaway server, on 127.0.0.1, settings ${JSON.stringify(BENCH_POSTGRES_SETTINGS)} (fsync on: see bench/lib/setup.ts)`,
  );
}
process.stderr.write(
  `${head.join('\n')}\nstarting the simulators,${soaking || loopOnly ? '' : ' the floor, the bare 401 server,'} ${variants.length} gateway(s) (logs: ${logPrefix}-*.log) and the load generator …\n`,
);

let bench: Bench | null = null;
let failed = 0;
const out: string[] = [...head];
try {
  bench = await startBench({
    logPrefix,
    withFloor: !soaking && !loopOnly,
    withRefuser: !soaking && !loopOnly,
    profileDir: profiling ? resolve(resultsDir, `profile-${stamp}`) : null,
    variants,
    postgresOnServers: options.postgresOnServers,
  });
  out.push('processes (each in its own; "cores" = the cores it may run on):', ...coreLines(bench), '');
  if (soaking) {
    const result = await soak(bench, quick ? SOAK_QUICK : SOAK, progress);
    out.push(...result.lines);
    failed = result.failed;
  } else if (loopOnly) {
    out.push(...agentLoopReport(await agentLoop(bench, loopSettings, progress), loopSettings));
  } else if (pathOnly) {
    const path = await agentPath(bench, pathSettings, progress);
    const report = agentPathReport(path);
    out.push(...report.lines, '', 'Raw per-round figures (JSON):', JSON.stringify({ agentPath: path }));
    failed = report.failed;
  } else {
    const comparison = await compare(bench, quick ? QUICK : FULL, progress);
    // Reported before the agent loop runs: a loop that fails loses none of the comparison.
    out.push(...comparisonReport(comparison), ...(bench.otlpSink ? [sinkLine(bench.otlpSink)] : []), '');
    failed = failures(comparison).total;
    const loop = await agentLoop(bench, loopSettings, progress);
    out.push(...agentLoopReport(loop, loopSettings), '');
    const path = await agentPath(bench, pathSettings, progress);
    const report = agentPathReport(path);
    out.push(...report.lines, '', 'Raw per-round figures (JSON):', JSON.stringify({ ...comparison, agentLoop: loop, agentPath: path }));
    failed += report.failed;
  }
} catch (error) {
  out.push(`!!! THE BENCH FAILED: ${(error as Error).message} !!!`);
  failed = Math.max(failed, 1);
} finally {
  if (bench) await stopBench(bench);
}
out.push(`load average (1/5/15 min) at the end ${box.load()}; gateway logs: ${logPrefix}-*.log`);
if (profiling) out.push(`gateway CPU profiles (open in Chrome DevTools or speedscope): ${resolve(resultsDir, `profile-${stamp}`)}/<gateway>/`);

const text = out.join('\n');
writeFileSync(resultFile, `${text}\n`);
// The raw JSON goes to the file only; the terminal gets the table.
process.stdout.write(`\n${text.replace(/\nRaw per-round figures \(JSON\):\n.*\n/, '\n')}\nwritten to ${resultFile}\n`);
if (failed) process.exitCode = 1;
