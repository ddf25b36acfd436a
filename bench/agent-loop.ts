import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { treeCpuMs } from './lib/processes.js';
import type { Bench } from './lib/setup.js';
import { median, percentiles } from './lib/stats.js';
import { ms, num, table, type Row } from './lib/table.js';
import { CONTENT_CHUNKS } from './lib/workload.js';

/**
 * The agent-loop scenario: agents each run a conversation of several turns on a gateway, over
 * HTTP (each turn a streamed `POST /v1/responses` with `store: false` and the whole history, as
 * Codex CLI sends it) and over WebSocket mode (one connection per agent, each turn a
 * `response.create` with only the new input and `previous_response_id`, the connection keeping
 * the conversation). A turn alternates as an agent's does: a user message that the model answers
 * with a tool call, then the tool's output that it answers in text.
 */

export interface AgentLoopSettings {
  /** Conversations at once, each on its own connection. */
  agents: number;
  /** Turns of each conversation. */
  turns: number;
  rounds: number;
}

export const AGENT_LOOP: AgentLoopSettings = { agents: 8, turns: 8, rounds: 3 };
export const AGENT_LOOP_QUICK: AgentLoopSettings = { agents: 2, turns: 4, rounds: 1 };

export type Transport = 'http' | 'websocket';
const TRANSPORTS: readonly Transport[] = ['http', 'websocket'];

export interface AgentLoopMeasurement {
  round: number;
  target: string;
  transport: Transport;
  turns: number;
  wallMs: number;
  /** From a turn's request to its terminal event, ms. */
  turnP50: number;
  turnP99: number;
  /** CPU µs the gateway used per turn. */
  gatewayUsPerTurn: number;
}

type Json = Record<string, unknown>;

const MODEL = 'gamma-5.4';
const TOOLS = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }];

/** The input a turn adds: a user message on even turns, the output of the call the last turn made on odd ones. */
function newInput(turn: number, last: Json | null): Json[] {
  const call = (last?.['output'] as Json[] | undefined)?.find((item) => item['type'] === 'function_call');
  if (turn % 2 === 1 && call) return [{ type: 'function_call_output', call_id: call['call_id'], output: `result of step ${turn}` }];
  return [{ role: 'user', content: `Step ${turn}: look it up [[sim:tokens=${CONTENT_CHUNKS}]]` }];
}

/** The response of an SSE body's terminal event. */
function completedOf(sse: string): Json {
  const line = sse.split('\n').find((row) => row.startsWith('data: {"type":"response.completed"'));
  if (!line) throw new Error(`bench: a turn did not complete over HTTP: ${sse.slice(-300)}`);
  return (JSON.parse(line.slice(6)) as Json)['response'] as Json;
}

async function httpAgent(origin: string, key: string, turns: number, times: number[]): Promise<void> {
  let history: Json[] = [];
  let last: Json | null = null;
  for (let turn = 0; turn < turns; turn++) {
    history = [...history, ...newInput(turn, last)];
    const started = performance.now();
    const res = await fetch(`${origin}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: history, tools: TOOLS, store: false, stream: true }),
    });
    last = completedOf(await res.text());
    times.push(performance.now() - started);
    history = [...history, ...(last['output'] as Json[])];
  }
}

async function socketAgent(origin: string, key: string, turns: number, times: number[]): Promise<void> {
  const ws = new WebSocket(`${origin.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${key}` } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let ended: ((response: Json) => void) | null = null;
  let failed: ((error: Error) => void) | null = null;
  ws.on('message', (data: Buffer) => {
    const text = data.toString();
    if (text.startsWith('{"type":"response.completed"')) ended?.((JSON.parse(text) as Json)['response'] as Json);
    else if (text.startsWith('{"type":"error"')) failed?.(new Error(`bench: a turn failed over WebSocket: ${text}`));
  });
  let last: Json | null = null;
  try {
    for (let turn = 0; turn < turns; turn++) {
      const started = performance.now();
      const message = {
        type: 'response.create',
        model: MODEL,
        input: newInput(turn, last),
        tools: TOOLS,
        store: false,
        previous_response_id: last?.['id'] ?? null,
      };
      last = await new Promise<Json>((resolve, reject) => {
        ended = resolve;
        failed = reject;
        ws.send(JSON.stringify(message));
      });
      times.push(performance.now() - started);
    }
  } finally {
    ws.close();
  }
}

/**
 * Every gateway of this tree, every round, both transports (their order alternating by round).
 * Not the `--against` checkouts': one built before WebSocket mode answers its upgrade 405.
 */
export async function agentLoop(bench: Bench, settings: AgentLoopSettings, progress: (line: string) => void): Promise<AgentLoopMeasurement[]> {
  const measurements: AgentLoopMeasurement[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const transports = round % 2 ? TRANSPORTS : [...TRANSPORTS].reverse();
    for (const gateway of bench.gateways.filter((g) => !g.target.variant?.checkout)) {
      const { origin, key } = bench.origins.gateways[gateway.target.id] ?? { origin: '', key: '' };
      for (const transport of transports) {
        const times: number[] = [];
        const agent = transport === 'http' ? httpAgent : socketAgent;
        const pid = gateway.process.pid;
        const cpuBefore = treeCpuMs(pid);
        const started = performance.now();
        await Promise.all(Array.from({ length: settings.agents }, () => agent(origin, key, settings.turns, times)));
        const wallMs = performance.now() - started;
        bench.group.assertAlive();
        const { p50, p99 } = percentiles(times);
        const measured = {
          round,
          target: gateway.target.id,
          transport,
          turns: times.length,
          wallMs,
          turnP50: p50,
          turnP99: p99,
          gatewayUsPerTurn: ((treeCpuMs(pid) - cpuBefore) * 1000) / times.length,
        };
        measurements.push(measured);
        progress(`round ${round}/${settings.rounds} agent loop ${transport.padEnd(9)} ${gateway.target.id.padEnd(18)} turn p50 ${p50.toFixed(2)} ms`);
      }
    }
  }
  return measurements;
}

/** The report: per gateway and transport, the medians across rounds. */
export function agentLoopReport(measurements: readonly AgentLoopMeasurement[], settings: AgentLoopSettings): string[] {
  const targets = [...new Set(measurements.map((m) => m.target))];
  const rows: Row[] = targets.flatMap((target) =>
    TRANSPORTS.map((transport): Row => {
      const mine = measurements.filter((m) => m.target === target && m.transport === transport);
      const of = (pick: (m: AgentLoopMeasurement) => number): number => median(mine.map(pick));
      return [
        `${target}, ${transport === 'http' ? 'HTTP (whole history)' : 'WebSocket (previous_response_id)'}`,
        num(of((m) => (m.turns * 1000) / m.wallMs)),
        `${ms(of((m) => m.turnP50))} / ${ms(of((m) => m.turnP99))}`,
        num(of((m) => m.gatewayUsPerTurn)),
      ];
    }),
  );
  return [
    `Agent loop: ${settings.agents} agents at once, ${settings.turns} turns each (a tool call, then its output), store: false, streamed; medians of ${settings.rounds} round(s)`,
    ...table([['', 'turns/s', 'turn p50 / p99 ms', 'gateway CPU µs/turn']], rows),
  ];
}
