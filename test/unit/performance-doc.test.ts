import t from 'tap';
import { ADDED_P50_MS, ADDED_P99_MS, ADDED_TTFB_P50_MS, THROUGHPUT_TARGETS } from '../../bench/report.js';
import { WITHIN } from '../../bench/report-ingress.js';
import { POSTGRES_ADDED_P50_MS, POSTGRES_THROUGHPUT } from '../../bench/report-variants.js';
import { USAGE } from '../../bench/lib/options.js';
import { startFlags } from '../../bench/lib/start-flags.js';
import { CLOSED_LOOP_SCENARIOS } from '../../bench/lib/workload.js';
import { MAX_GROWTH } from '../../bench/soak.js';
import { REFUSAL_OVER_BARE } from '../../bench/scenarios/refusals.js';
import { BODY_ADDED_P50_MS, BODY_CPU_OVER_FLOOR } from '../../bench/scenarios/body-sizes.js';
import { ADDED_TTFT_P50_MS, CHUNK_DELAY_MS, TURN_RATE } from '../../bench/scenarios/streamed-turns.js';
import { AGENT_PATH, AGENT_PATH_QUICK } from '../../bench/agent-path.js';
import { BODY_SIZES } from '../../bench/scenarios/body-sizes.js';
import { CONCURRENCY } from '../../bench/scenarios/concurrency.js';
import { LARGE_PER_S, TURNS_PER_S } from '../../bench/scenarios/head-of-line.js';
import { PAGE_CACHE_KIB } from '../../src/store/sqlite/sqlite-store.js';
import { MAX_JSON_DEPTH } from '../../src/chain/json-body.js';
import { PARSE_IN_STEPS_FROM_BYTES } from '../../src/pipeline/admission.js';
import { RECENT_KEYS_MS } from '../../src/store/recent-keys.js';
import { missingPaths, readDoc, section } from '../helpers/doc-facts.js';

/** docs/performance.md, the manual: what it says the bench and the hot path do is what they do. */
const manual = readDoc('performance.md');

t.test("the manual's commands are the bench's options, all of them", async (t) => {
  const commands = section(manual, 'Running the bench');
  const documented = new Set([...commands.matchAll(/npm run bench -- .*?(?=\s+#)/g)].flatMap((m) => [...m[0].matchAll(/--[a-z-]+/g)].map((f) => f[0])));
  const accepted = new Set([...USAGE.matchAll(/--[a-z-]+/g)].map((f) => f[0]));
  t.same([...documented].sort(), [...accepted].sort());
});

t.test("the targets are the bench's verdicts", async (t) => {
  const targets = section(manual, 'Targets');
  for (const scenario of CLOSED_LOOP_SCENARIOS) {
    const row = new RegExp(`^\\| \`${scenario.id}\`: .* \\| ≥ ([\\d.]+) \\|$`, 'm').exec(targets);
    t.equal(Number(row?.[1]), THROUGHPUT_TARGETS[scenario.id], `${scenario.id} has its row and target`);
  }
  t.match(targets, `p50 ≤ ${ADDED_P50_MS} ms, p99 ≤ ${ADDED_P99_MS} ms, time to first byte p50 ≤ ${ADDED_TTFB_P50_MS} ms`);
  t.match(targets, `quotient ≥ ${(1 - WITHIN).toFixed(2)}`);
  t.match(targets, `≥ ${POSTGRES_THROUGHPUT.toFixed(2)}× the requests/s, open-loop added p50 within +${POSTGRES_ADDED_P50_MS} ms`);
  t.match(targets, `RSS growth ≤ ${MAX_GROWTH * 100} %`);
  t.match(targets, `a refusal's CPU ≤ ${REFUSAL_OVER_BARE}× the bare 401 server's, and below the floor's`);
  t.match(targets, `applied to the first token, p50 ≤ +${ADDED_TTFT_P50_MS} ms\n  over direct`);
  t.match(section(manual, 'What each scenario measures'), `chunks ${CHUNK_DELAY_MS} ms apart (the \`[[sim:chunk_delay_ms=${CHUNK_DELAY_MS}]]\``);
  t.match(section(manual, 'What each scenario measures'), `open loop at ${TURN_RATE} requests/s`);
  t.match(targets, `p50 ≤ +${BODY_ADDED_P50_MS} ms over the floor; at every size, the\n  gateway's CPU per call ≤ ${BODY_CPU_OVER_FLOOR}× the floor's`);
});

t.test("the agent's-path scenarios run as the manual says", async (t) => {
  const text = section(manual, 'What each scenario measures').replace(/\s+/g, ' ');
  t.match(text, `--agent-path\`: ${AGENT_PATH.rounds} rounds (\`--quick\`: ${AGENT_PATH_QUICK.rounds})`);
  t.match(text, `closed loop (${AGENT_PATH.connections} connections, ${AGENT_PATH.closedS} s per run; \`--quick\` ${AGENT_PATH_QUICK.closedS} s)`);
  const open = `${AGENT_PATH.openS} s per run (\`--quick\` ${AGENT_PATH_QUICK.openS} s`;
  t.equal(text.split(open).length - 1, 4, 'body sizes, streamed turns, head-of-line and the sweep');
  t.match(text, `${AGENT_PATH.openS} s per run (\`--quick\` ${AGENT_PATH_QUICK.openS} s)`);
  t.match(text, `${BODY_SIZES[0]?.rate} requests/s, 2 MB at ${BODY_SIZES[3]?.rate}/s`);
  t.match(text, `turns at ${TURNS_PER_S} requests/s`);
  t.match(text, `${LARGE_PER_S} a second`);
  t.match(text, `${CONCURRENCY.slice(0, -1).join(', ')} and ${CONCURRENCY.at(-1)} of those`);
});

t.test('the levers state the settings the code has', async (t) => {
  const levers = section(manual, 'Levers');
  for (const flag of startFlags('.')) t.match(levers, `\`${flag}\``, `npm start's ${flag} is explained`);
  t.match(levers, `page cache bounded at ${PAGE_CACHE_KIB / 1024} MiB`);
  t.equal(RECENT_KEYS_MS, 1000);
  t.match(levers, 'Key lookups remembered for a second');
  t.match(levers, `${MAX_JSON_DEPTH}-level bound`);
  t.match(levers, `\`PARSE_IN_STEPS_FROM_BYTES\`, ${PARSE_IN_STEPS_FROM_BYTES / 1024} KiB`);
});

t.test('every path the manual names exists', async (t) => {
  t.same(missingPaths(manual), []);
});
