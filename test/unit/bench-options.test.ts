import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parseBenchOptions } from '../../bench/lib/options.js';
import { planCores } from '../../bench/lib/processes.js';
import { startFlags } from '../../bench/lib/start-flags.js';
import { baselineOf, gatewayPairs, gatewaysOf, gatewayVariants, roundOrder, targetsOf } from '../../bench/lib/targets.js';

t.test('bench --against: a built checkout, not with --soak', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-against-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.throws(() => parseBenchOptions(['--against', dir]), /no built gateway there/, 'a checkout without dist/src/main.js is refused');
  mkdirSync(join(dir, 'dist/src'), { recursive: true });
  writeFileSync(join(dir, 'dist/src/main.js'), '');
  t.same(parseBenchOptions(['--against', dir]).against, [dir]);
  t.same(parseBenchOptions([]).against, []);
  t.throws(() => parseBenchOptions(['--soak', '--against', dir]), /--soak measures the one default gateway/);
  t.throws(() => parseBenchOptions(['--against', dir, '--against', dir]), /the same checkout twice/);
});

t.test('bench --against, repeated: every checkout a target of its own, in the order given', async (t) => {
  const dirs = ['new', 'old'].map((name) => {
    const dir = mkdtempSync(join(tmpdir(), `bench-against-${name}-`));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'dist/src'), { recursive: true });
    writeFileSync(join(dir, 'dist/src/main.js'), '');
    return dir;
  });
  t.same(parseBenchOptions(['--against', dirs[0] as string, '--against', dirs[1] as string]).against, dirs);
  const targets = targetsOf(
    gatewayVariants('sqlite', 1, [
      { dir: '/new', name: '7f46f88' },
      { dir: '/old', name: '4edc547' },
    ]),
    true,
  );
  t.same(
    targets.map((target) => target.id),
    ['direct', 'floor', 'gateway', 'gateway-against', 'gateway-against-2'],
  );
  t.same(
    targets.slice(3).map((target) => target.label),
    ['gw 7f46f88', 'gw 4edc547'],
  );
});

t.test('bench rounds: direct and floor first, the gateways rotated by one each round', async (t) => {
  const targets = targetsOf(gatewayVariants('postgres', 1, [{ dir: '/old', name: '4edc547' }]), true);
  const ids = (round: number): string[] => roundOrder(targets, round).map((target) => target.id);
  t.same(ids(1), ['direct', 'floor', 'gateway', 'gateway-postgres', 'gateway-against']);
  t.same(ids(2), ['direct', 'floor', 'gateway-postgres', 'gateway-against', 'gateway']);
  t.same(ids(3), ['direct', 'floor', 'gateway-against', 'gateway', 'gateway-postgres']);
  t.same(ids(4), ids(1), 'the rotation repeats');
  const alone = targetsOf(gatewayVariants('sqlite', 1), false);
  t.same(roundOrder(alone, 2), alone, 'one gateway: the same order every round');
});

t.test("bench --against: the other checkout's gateway is a target of its own, never the baseline", async (t) => {
  const variants = gatewayVariants('postgres', 1, [{ dir: '/old', name: '4edc547' }]);
  const targets = targetsOf(variants, true);
  t.same(
    targets.map((target) => target.id),
    ['direct', 'floor', 'gateway', 'gateway-postgres', 'gateway-against'],
  );
  t.equal(targets.at(-1)?.label, 'gw 4edc547');
  t.equal(baselineOf(targets).id, 'gateway', "this tree's SQLite gateway stays the baseline");
  t.same(gatewayVariants('sqlite', 1), [{ store: 'sqlite', workers: 1 }], 'without --against, nothing is added');
});

t.test('bench pairs: this tree against each checkout, and each checkout against those given after it', async (t) => {
  const variants = gatewayVariants('postgres', 1, [
    { dir: '/new', name: '7f46f88' },
    { dir: '/old', name: '4edc547' },
  ]);
  const pairs = gatewayPairs(gatewaysOf(targetsOf(variants, true)));
  t.same(
    pairs.map((pair) => [pair.what, pair.subject.id, pair.base.id, pair.judged]),
    [
      ['PostgreSQL ÷ SQLite', 'gateway-postgres', 'gateway', true],
      ['this tree ÷ 7f46f88', 'gateway', 'gateway-against', false],
      ['this tree ÷ 4edc547', 'gateway', 'gateway-against-2', false],
      ['7f46f88 ÷ 4edc547', 'gateway-against', 'gateway-against-2', false],
    ],
  );
});

t.test("bench: each gateway runs with the node flags of its own checkout's npm start", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-flags-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const withStart = (start: string | undefined): string[] => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: start === undefined ? {} : { start } }));
    return startFlags(dir);
  };
  t.same(withStart('npm run build && node dist/src/main.js'), [], 'an older checkout: none');
  t.same(withStart('npm run build && node --max-semi-space-size=32 --no-warnings dist/src/main.js'), ['--max-semi-space-size=32', '--no-warnings']);
  t.same(withStart(undefined), [], 'no start script');
  t.same(withStart('node dist/other.js'), [], 'not the gateway');
  t.same(startFlags('.'), ['--max-semi-space-size=32'], "this checkout's npm start: V8's young generation at 32 MB per semi-space (docs/operations.md)");
});

t.test("bench cores: PostgreSQL on cores of its own, the load generator's when none is left, or with the servers when asked", async (t) => {
  const place = (cores: number, workers: number, onServers = false): [string | null, string | null] => {
    const plan = planCores(cores, workers, onServers, true);
    return [plan.servers, plan.store];
  };
  t.same(place(2, 1), ['1', '0'], "2 cores: beside the load generator, not on the gateways' core");
  t.same(place(3, 1), ['1', '2'], 'a core left: its own');
  t.same(place(8, 2), ['1-2', '3-7'], 'several left: all of them');
  t.same(place(2, 1, true), ['1', '1'], '--postgres-on-servers: with the servers, as before');
  t.match(planCores(2, 1, false, true).note, /PostgreSQL, if used, on core 0, beside the load generator/, 'the output says where');
  t.same(planCores(1, 1, false, true).store, null, 'nothing pinned: nothing placed');
  t.same(planCores(4, 1, false, false).store, null, 'no taskset: nothing placed');
  t.equal(parseBenchOptions(['--store', 'postgres', '--postgres-on-servers']).postgresOnServers, true);
  t.equal(parseBenchOptions(['--store', 'postgres']).postgresOnServers, false);
  t.throws(() => parseBenchOptions(['--postgres-on-servers']), /places the server of --store postgres/);
});

t.test('bench --agent-loop: only the agent-loop scenario, not with --soak', async (t) => {
  t.equal(parseBenchOptions(['--agent-loop', '--quick']).agentLoop, true);
  t.equal(parseBenchOptions([]).agentLoop, false);
  t.throws(() => parseBenchOptions(['--agent-loop', '--soak']), /runs of their own: choose one/);
});

t.test("bench --agent-path: only the agent's-path scenarios, a run of its own", async (t) => {
  t.equal(parseBenchOptions(['--agent-path', '--quick']).agentPath, true);
  t.equal(parseBenchOptions([]).agentPath, false);
  const built = mkdtempSync(join(tmpdir(), 'bench-against-'));
  t.teardown(() => rmSync(built, { recursive: true, force: true }));
  mkdirSync(join(built, 'dist/src'), { recursive: true });
  writeFileSync(join(built, 'dist/src/main.js'), '');
  t.equal(parseBenchOptions(['--agent-path', '--against', built, '--profile']).agentPath, true, 'with --against (a built checkout) and --profile');
  t.throws(() => parseBenchOptions(['--agent-path', '--soak']), /runs of their own: choose one/);
  t.throws(() => parseBenchOptions(['--agent-path', '--agent-loop']), /runs of their own: choose one/);
});

t.test('bench --deployments N: one more gateway of this tree, compared with the single-upstream baseline', async (t) => {
  t.equal(parseBenchOptions([]).deployments, 1);
  t.equal(parseBenchOptions(['--deployments', '3']).deployments, 3);
  t.throws(() => parseBenchOptions(['--deployments', '0']), /a whole number from 1 to 8/);
  t.throws(() => parseBenchOptions(['--soak', '--deployments', '3']), /--soak measures the one default gateway/);
  const targets = targetsOf(gatewayVariants('sqlite', 1, [{ dir: '/old', name: '4edc547' }], { deployments: 3 }), true);
  t.same(
    targets.map((target) => [target.id, target.label]),
    [
      ['direct', 'direct'],
      ['floor', 'floor'],
      ['gateway', 'gw sqlite'],
      ['gateway-d3', 'gw 3 deployments'],
      ['gateway-against', 'gw 4edc547'],
    ],
  );
  t.equal(baselineOf(targets).id, 'gateway', 'the single form stays the baseline');
  t.same(
    gatewayPairs(gatewaysOf(targets)).map((pair) => [pair.what, pair.subject.id, pair.base.id]),
    [
      ['3 deployments ÷ 1', 'gateway-d3', 'gateway'],
      ['this tree ÷ 4edc547', 'gateway', 'gateway-against'],
    ],
  );
});

t.test('bench --telemetry: one more gateway of this tree with telemetry on, compared with the baseline (off)', async (t) => {
  t.equal(parseBenchOptions([]).telemetry, false);
  t.equal(parseBenchOptions(['--telemetry']).telemetry, true);
  t.throws(() => parseBenchOptions(['--soak', '--telemetry']), /--soak measures the one default gateway/);
  const targets = targetsOf(gatewayVariants('sqlite', 1, [{ dir: '/old', name: '4edc547' }], { deployments: 2, telemetry: true }), true);
  t.same(
    targets.map((target) => [target.id, target.label]),
    [
      ['direct', 'direct'],
      ['floor', 'floor'],
      ['gateway', 'gw sqlite'],
      ['gateway-d2', 'gw 2 deployments'],
      ['gateway-otel', 'gw telemetry on'],
      ['gateway-against', 'gw 4edc547'],
    ],
  );
  t.equal(baselineOf(targets).id, 'gateway', 'telemetry off stays the baseline');
  t.same(
    gatewayPairs(gatewaysOf(targets)).map((pair) => [pair.what, pair.subject.id, pair.base.id]),
    [
      ['2 deployments ÷ 1', 'gateway-d2', 'gateway'],
      ['telemetry on ÷ off', 'gateway-otel', 'gateway'],
      ['this tree ÷ 4edc547', 'gateway', 'gateway-against'],
    ],
  );
});
