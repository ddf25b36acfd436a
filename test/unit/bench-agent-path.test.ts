import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { pairedAcross, ratio } from '../../bench/figures.js';
import { targetsOf, BASELINE } from '../../bench/lib/targets.js';
import { argumentDeltas, checkBody, FIRST_TOKEN_MARK } from '../../bench/load/checks.js';
import { openLoop, TokenClock } from '../../bench/load/open-loop.js';
import type { ClosedLoopResult, ConcurrentResult, Failures, OpenLoopResult } from '../../bench/load/protocol.js';
import { BODY_ADDED_P50_MS, BODY_CPU_OVER_FLOOR, BODY_SIZES, bodySizeReport, BYTES_PER_TOKEN, paddedPrompt } from '../../bench/scenarios/body-sizes.js';
import { CONTENT_CHUNKS, DEFAULT_PROMPT, TOOL_CALL, unknownKey, type RequestSpec } from '../../bench/lib/workload.js';
import { closedLoop } from '../../bench/load/closed-loop.js';
import { concurrentStreams } from '../../bench/load/concurrent.js';
import { concurrencyReport } from '../../bench/scenarios/concurrency.js';
import { blobPrompt, headOfLineReport, LARGE_BYTES, LARGE_PER_S, mixedJob, TURNS_PER_S } from '../../bench/scenarios/head-of-line.js';
import { ADDED_TTFT_P50_MS, CHUNK_DELAY_MS, streamedTurnReport, turnPrompt } from '../../bench/scenarios/streamed-turns.js';
import type { CaseMeasurement } from '../../bench/scenarios/measured.js';
import { errorLines } from '../../bench/scenarios/measured.js';
import { refusalReport, refusedRequest, REFUSAL_OVER_BARE } from '../../bench/scenarios/refusals.js';
import { AGENT_PATH } from '../../bench/agent-path.js';
import { NATIVE_KEY_PATTERN } from '../../src/toolkit/secrets.js';

/** The agent's-path scenarios of the bench (bench/agent-path.ts): their checks, clocks and verdicts. */

const NO_FAILURES: Failures = { socket: 0, timeouts: 0, non200: 0, wrong: 0 };

const run = (round: number, scenario: string, target: string, proxyUs: number, failures = NO_FAILURES): CaseMeasurement<ClosedLoopResult> => ({
  round,
  scenario,
  target,
  result: { type: 'closed', rps: 1000, ok: 1000, latency: { p50: 1, p99: 2 }, failures },
  cpu: { proxyUsPerAnswer: proxyUs, storeUsPerAnswer: null, simUsPerAnswer: 0, loadShare: 0 },
});

t.test('a refusal is right only as invalid_api_key in the chat error envelope', async (t) => {
  t.ok(
    checkBody('reference-401', JSON.stringify({ error: { message: 'The key is not valid.', type: 'invalid_api_key', param: null, code: 'invalid_api_key' } })),
  );
  t.notOk(checkBody('reference-401', JSON.stringify({ error: { message: 'Rate limited.', code: 'rate_limit_exceeded' } })), 'another error');
  t.notOk(checkBody('reference-401', JSON.stringify({ error: { message: '', code: 'invalid_api_key' } })), 'no message');
  t.notOk(checkBody('reference-401', 'Unauthorized'), 'not JSON');
});

t.test('the flood sends a well-formed unknown key, or none, and expects 401', async (t) => {
  const keys = new Set(Array.from({ length: 20 }, unknownKey));
  t.equal(keys.size, 20, 'a new key each time');
  for (const key of keys) t.match(key, NATIVE_KEY_PATTERN);
  const wrong = refusedRequest('http://127.0.0.1:1', 'fresh');
  t.equal(wrong.freshKey, true);
  t.equal(wrong.status, 401);
  t.equal(wrong.check, 'reference-401');
  const none = refusedRequest('http://127.0.0.1:1', 'none');
  t.notOk('authorization' in none.headers || none.freshKey, 'no key: no header');
});

t.test('time to first token is to the chunk that completes the mark; the gaps follow it', async (t) => {
  const clock = new TokenClock(FIRST_TOKEN_MARK['reference-sse'] as string);
  clock.chunk('data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n', 1);
  t.ok(Number.isNaN(clock.ttft), 'the role frame is not a token');
  clock.chunk('data: {"choices":[{"delta":{"con', 2);
  clock.chunk('tent":"Hi"}}]}\n\n', 3);
  t.equal(clock.ttft, 3, 'a mark split across two chunks counts when it is whole');
  clock.chunk('data: {"choices":[{"delta":{"content":" there"}}]}\n\n', 8);
  clock.chunk('data: [DONE]\n\n', 14);
  t.same(clock.gaps, [5, 6]);
  t.equal(FIRST_TOKEN_MARK['reference-401'], null, 'a refusal has no tokens');
});

t.test('pairs across cases are taken within a round, then the median', async (t) => {
  const runs = [
    run(1, 'wrong-key', 'gateway', 300),
    run(1, 'bare-401', 'bare-401', 100),
    run(2, 'wrong-key', 'gateway', 120),
    run(2, 'bare-401', 'bare-401', 100),
  ];
  runs.push(run(3, 'wrong-key', 'gateway', 150), run(3, 'bare-401', 'bare-401', 100), run(4, 'wrong-key', 'gateway', 999));
  t.equal(
    pairedAcross(runs, ['wrong-key', 'gateway'], ['bare-401', 'bare-401'], (m) => m.cpu.proxyUsPerAnswer ?? NaN, ratio),
    1.5,
    'rounds 3, 1.2, 1.5; round 4 has no partner',
  );
});

t.test('the refusal table judges each gateway against the bare 401 server and the floor', async (t) => {
  const targets = targetsOf([BASELINE], true);
  const runs = [
    run(1, 'bare-401', 'bare-401', 100),
    run(1, 'forward', 'floor', 400),
    run(1, 'wrong-key', 'gateway', 100 * REFUSAL_OVER_BARE),
    run(1, 'no-key', 'gateway', 500),
  ];
  const lines = refusalReport(runs, targets, AGENT_PATH).join('\n');
  t.match(lines, /gateway, unknown key\s+150\s+1\.50 met\s+0\.38 met/);
  t.match(lines, /gateway, no key\s+500\s+5\.00 MISSED\s+1\.25 MISSED/);
  t.match(lines, /floor, forwarding gamma-json\s+400/);
});

t.test('a failed answer is an error of the run', async (t) => {
  t.same(errorLines('x', [run(1, 'no-key', 'gateway', 1)]), { lines: [], failed: 0 });
  const bad = errorLines('the agent path', [run(2, 'no-key', 'gateway', 1, { ...NO_FAILURES, non200: 3, first: '429 {}' })]);
  t.equal(bad.failed, 3);
  t.match(bad.lines[0], /^!!! ERRORS in the agent path: 3 /);
  t.match(bad.lines[1], /round 2 no-key on gateway: first 429/);
});

const streamed = (round: number, scenario: string, target: string, p50: number, proxyUs: number | null): CaseMeasurement<OpenLoopResult> => ({
  round,
  scenario,
  target,
  result: { type: 'open', sent: 10, ok: 10, total: { p50, p99: p50 * 2 }, ttfb: { p50: 1, p99: 2 }, lateP99: 0, failures: NO_FAILURES },
  cpu: { proxyUsPerAnswer: proxyUs, storeUsPerAnswer: null, simUsPerAnswer: 0, loadShare: 0 },
});

t.test('a padded prompt is the size asked for, and the default prompt still steers the reply', async (t) => {
  for (const { bytes } of BODY_SIZES) {
    const prompt = paddedPrompt(bytes);
    t.ok(prompt.length >= bytes && prompt.length < bytes + 100, `${bytes} bytes`);
    t.ok(prompt.endsWith(DEFAULT_PROMPT));
  }
  t.equal(BODY_SIZES[2]?.bytes, 100_000 * BYTES_PER_TOKEN, '100k tokens at 4 bytes a token');
});

t.test('body sizes: the added p50 is judged at 100k tokens, the CPU at every size', async (t) => {
  const targets = targetsOf([BASELINE], true);
  const runs = BODY_SIZES.flatMap(({ id }) => [
    streamed(1, id, 'direct', 10, null),
    streamed(1, id, 'floor', 12, 1000),
    streamed(1, id, 'gateway', 12 + BODY_ADDED_P50_MS * 2, 1000 * BODY_CPU_OVER_FLOOR),
  ]);
  const lines = bodySizeReport(runs, targets, AGENT_PATH);
  t.match(
    lines.find((l) => l.startsWith('100k tokens')),
    /\+2\.00 MISSED\s+1000\s+2000\s+2\.00 met$/,
  );
  t.match(
    lines.find((l) => l.startsWith('1k tokens')),
    /\+2\.00\s+1000\s+2000\s+2\.00 met$/,
    'no latency verdict at 1k',
  );
});

const sse = (deltas: object[], finish = 'tool_calls'): string =>
  [...deltas.map((delta) => ({ choices: [{ index: 0, delta, finish_reason: null }] })), { choices: [{ index: 0, delta: {}, finish_reason: finish }] }]
    .map((frame) => `data: ${JSON.stringify(frame)}\n\n`)
    .join('') + 'data: [DONE]\n\n';
const head = { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: TOOL_CALL.name, arguments: '' } }] };
const argument = (part: string): object => ({ tool_calls: [{ index: 0, function: { arguments: part } }] });

t.test('a tool-call stream is whole only with every argument delta, each whole and in order', async (t) => {
  const half = Math.ceil(TOOL_CALL.arguments.length / 2);
  const [first, second] = [TOOL_CALL.arguments.slice(0, half), TOOL_CALL.arguments.slice(half)];
  t.same(argumentDeltas(sse([head, argument(first), argument(second)])), [first, second], 'the head, with no arguments, left out');
  t.ok(checkBody('reference-tool-sse', sse([head, argument(first), argument(second)])));
  t.notOk(checkBody('reference-tool-sse', sse([head, argument(second), argument(first)])), 'out of order');
  t.notOk(checkBody('reference-tool-sse', sse([head, argument(TOOL_CALL.arguments)])), 'merged into one');
  t.notOk(checkBody('reference-tool-sse', sse([head, argument(first)])), 'one lost');
  t.notOk(checkBody('reference-tool-sse', sse([head, argument(first), argument(second)], 'stop')), 'not finished as a tool call');
  t.same(JSON.parse(TOOL_CALL.arguments), { query: 'the weather in Paris on the 3rd', units: 'metric', days: 3 }, "the schema's const values");
});

t.test('streamed turns: the first token over direct is judged, the tool stream shows its share of whole streams', async (t) => {
  const targets = targetsOf([BASELINE], true);
  const turn = (target: string, ttft: number, ok = 10): CaseMeasurement<OpenLoopResult> => {
    const m = streamed(1, 'turn-gamma', target, 100, null);
    return { ...m, result: { ...m.result, ok, ttft: { p50: ttft, p99: ttft * 2 }, gap: { p50: CHUNK_DELAY_MS, p99: 7 } } };
  };
  const runs = [turn('direct', 8), turn('floor', 8.5), turn('gateway', 8 + ADDED_TTFT_P50_MS / 2)];
  const tool = (target: string, ok: number): CaseMeasurement<OpenLoopResult> => ({
    ...streamed(1, 'turn-tool', target, 100, null),
    result: { ...streamed(1, 'turn-tool', target, 100, null).result, ok },
  });
  runs.push(tool('direct', 10), tool('floor', 10), tool('gateway', 9));
  const lines = streamedTurnReport(runs, targets, AGENT_PATH);
  t.match(
    lines.find((l) => l.startsWith('gamma, 20 chunks')),
    /8\.00 \/ 16\.0\s+8\.50 \/ 17\.0\s+8\.50 \/ 17\.0\s+\+0\.50 met\s+\+0\.00\s+5\.00 \/ 7\.00/,
  );
  t.match(lines.at(-1), /direct 100\.0 % of 10, floor 100\.0 % of 10, gateway 90\.0 % of 10$/);
  t.match(turnPrompt(), `[[sim:chunk_delay_ms=${CHUNK_DELAY_MS}]]`);
});

t.test('head-of-line: 40 turns a second, a large body every 200 ms in turn of size, the figures of the turns only', async (t) => {
  const spec = (body: string): RequestSpec => ({ url: 'http://127.0.0.1:1/', headers: {}, body, check: 'reference-sse' });
  const turn = spec('turn');
  const [small, huge] = [spec('400k'), spec('5m')];
  const job = mixedJob(turn, [small, huge], 3);
  t.equal(job.rate, TURNS_PER_S + LARGE_PER_S);
  t.same(
    job.requests.map((r) => r.body),
    [...Array<string>(8).fill('turn'), '400k', ...Array<string>(8).fill('turn'), '5m'],
  );
  t.same(job.figured, [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16]);
  t.equal(job.tokens, true);
  for (const bytes of LARGE_BYTES) {
    const prompt = blobPrompt(bytes);
    t.ok(prompt.length >= bytes && prompt.length < bytes + 100, `${bytes} bytes`);
    t.ok(prompt.split(' ').length < bytes / 1000, 'in words of a kilobyte: the simulator counts them quickly');
  }
});

t.test('head-of-line: the p99 growth is paired within the round, per target', async (t) => {
  const targets = targetsOf([BASELINE], true);
  const at = (round: number, scenario: string, target: string, p99: number): CaseMeasurement<OpenLoopResult> => {
    const m = streamed(round, scenario, target, 100, null);
    return { ...m, result: { ...m.result, ttft: { p50: 5, p99 } } };
  };
  const runs = [
    at(1, 'turns-alone', 'gateway', 10),
    at(1, 'turns-beside', 'gateway', 30),
    at(2, 'turns-alone', 'gateway', 40),
    at(2, 'turns-beside', 'gateway', 50),
  ];
  runs.push(at(3, 'turns-alone', 'gateway', 10), at(3, 'turns-beside', 'gateway', 25), at(1, 'turns-alone', 'direct', 8), at(1, 'turns-beside', 'direct', 9));
  const lines = headOfLineReport(runs, targets, AGENT_PATH);
  t.match(
    lines.find((l) => l.startsWith('gateway')),
    /5\.00 \/ 10\.0\s+5\.00 \/ 30\.0\s+\+15\.00$/,
    'rounds +20, +10, +15',
  );
  t.match(
    lines.find((l) => l.startsWith('direct')),
    /\+1\.00$/,
  );
  t.match(
    lines.find((l) => l.startsWith('floor')),
    /—$/,
    'not measured: no figure',
  );
});

t.test('the open loop figures only the requests it is told to, and checks every answer', async (t) => {
  const body = JSON.stringify({ choices: [{ finish_reason: 'stop', message: { content: 'hi' } }] });
  const server = http.createServer((req, res) => {
    const slow = req.url === '/slow';
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), slow ? 80 : 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const spec = (path: string): RequestSpec => ({ url: `${origin}${path}`, headers: {}, body: '{}', check: 'reference-json' });
  const result = await openLoop({ type: 'open', requests: [spec('/fast'), spec('/slow')], rate: 40, durationS: 0.5, figured: [0] });
  t.equal(result.sent, 20);
  t.equal(result.ok, 20, 'every answer checked and counted');
  t.ok(result.total.p99 < 60, `the slow ones are not in the figures (p99 ${result.total.p99.toFixed(1)} ms)`);
});

t.test('concurrent streams: that many callers at once, every stream checked and timed', async (t) => {
  const frames = [
    'data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n',
    ...Array.from({ length: CONTENT_CHUNKS }, () => 'data: {"choices":[{"delta":{"content":"x"}}]}\n\n'),
    'data: [DONE]\n\n',
  ];
  let open = 0;
  let most = 0;
  const server = http.createServer((_req, res) => {
    most = Math.max(most, (open += 1));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const timer = setInterval(() => {
      res.write(frames[i++]);
      if (i < frames.length) return;
      clearInterval(timer);
      open -= 1;
      res.end();
    }, 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const request: RequestSpec = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, headers: {}, body: '{}', check: 'reference-sse' };
  const result = await concurrentStreams({ type: 'concurrent', request, streams: 4, durationS: 0.3 });
  t.equal(most, 4, 'four streams at once, never more');
  t.ok(result.sent >= 4 && result.ok === result.sent, `${result.ok} of ${result.sent} streams whole`);
  t.ok((result.gap?.p50 ?? NaN) >= 0.5, 'gaps timed');
  t.ok(Number.isFinite(result.ttft?.p50), 'first tokens timed');
});

t.test("the sweep reports each gateway's gap over direct and its peak RSS", async (t) => {
  const targets = targetsOf([BASELINE], true);
  const at = (target: string, p99: number, rss?: number): CaseMeasurement<ConcurrentResult> => {
    const m = streamed(1, 'streams-16', target, 100, null);
    const result: ConcurrentResult = { ...m.result, type: 'concurrent', gap: { p50: 5, p99 } };
    return { ...m, result, ...(rss === undefined ? {} : { peakRssKiB: rss }) };
  };
  const lines = concurrencyReport([at('direct', 6), at('floor', 7), at('gateway', 9, 200 * 1024)], targets, AGENT_PATH);
  t.match(
    lines.find((l) => l.startsWith('16 ')),
    /5\.00 \/ 6\.00\s+5\.00 \/ 7\.00\s+5\.00 \/ 9\.00\s+\+3\.00\s+200$/,
  );
  t.match(
    lines.find((l) => l.startsWith('64 ')),
    /—\s+—$/,
    'not measured: no figure',
  );
});

t.test('the flood sends a new unknown key with every request, in both loops, and a 401 is then the right answer', async (t) => {
  const seen: Array<string | undefined> = [];
  const refusal = JSON.stringify({ error: { message: 'The key is not valid.', type: 'invalid_api_key', param: null, code: 'invalid_api_key' } });
  const server = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json' }).end(refusal);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const request = refusedRequest(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'fresh');
  const closed = await closedLoop({ type: 'closed', request, connections: 2, durationS: 0.3 });
  t.ok(closed.ok > 2, `${closed.ok} refusals`);
  t.same(closed.failures, { socket: 0, timeouts: 0, non200: 0, wrong: 0 });
  const open = await openLoop({ type: 'open', requests: [request], rate: 40, durationS: 0.25 });
  t.equal(open.ok, 10);
  t.ok(
    seen.every((auth) => auth && NATIVE_KEY_PATTERN.test(auth.slice('Bearer '.length))),
    'every key well formed',
  );
  t.equal(new Set(seen).size, seen.length, `${seen.length} requests, as many keys`);
  const expectsOk = await openLoop({ type: 'open', requests: [{ ...request, status: undefined }], rate: 40, durationS: 0.1 });
  t.equal(expectsOk.failures.non200, 4, 'a 401 where a 200 is expected is a failure');
});
