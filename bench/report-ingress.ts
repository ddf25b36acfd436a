import type { Comparison } from './compare.js';
import { paired, pairedQuotient, ratio } from './figures.js';
import { num, table, withVerdict, type Row } from './lib/table.js';
import { gatewaysOf } from './lib/targets.js';
import type { ScenarioId } from './lib/workload.js';

/**
 * The Responses API against the chat format, on the same family: each gateway's share of the
 * floor on a Responses scenario, divided by its share on the chat scenario it maps to, per
 * round (both scenarios' floors relay the same chat request), then the median over rounds.
 *
 * The target weighs the format's mapping against chat's own handling, so it is judged where the
 * gateway's work is the same apart from the mapping: `store: false` (as Codex CLI sends). With
 * the API's default, `store: true`, each call also commits its response for
 * `previous_response_id`, a write chat has no counterpart for: those rows show what storing
 * costs, without a verdict.
 */

interface Pair {
  label: string;
  responses: ScenarioId;
  chat: ScenarioId;
  /** Judged against the target (the like-for-like rows). */
  judged: boolean;
}

const PAIRS: readonly Pair[] = [
  { label: 'gamma, non-streamed, store: false', responses: 'responses-unstored-json', chat: 'gamma-json', judged: true },
  { label: 'gamma, streamed (20 chunks), store: false', responses: 'responses-unstored-stream', chat: 'gamma-stream', judged: true },
  { label: 'gamma, non-streamed, stored', responses: 'responses-json', chat: 'gamma-json', judged: false },
  { label: 'gamma, streamed (20 chunks), stored', responses: 'responses-stream', chat: 'gamma-stream', judged: false },
];

/** How far the Responses ratio may fall from the chat ratio (as a share of it). */
export const WITHIN = 0.1;

export function ingressSection(c: Comparison): string[] {
  if (!c.targets.some((t) => t.kind === 'floor')) return [];
  const gateways = gatewaysOf(c.targets);
  const rps = (m: { result: { rps: number } }): number => m.result.rps;
  const rows = PAIRS.map(({ label, responses, chat, judged }): Row => [
    label,
    ...gateways.flatMap((g) => {
      const onResponses = paired(c.closed, responses, [g.id, 'floor'], rps, ratio);
      const onChat = paired(c.closed, chat, [g.id, 'floor'], rps, ratio);
      const share = pairedQuotient(c.closed, [responses, chat], [g.id, 'floor'], rps);
      const quotient = judged ? withVerdict(num(share, 2), share, share >= 1 - WITHIN) : `${num(share, 2)} (no target)`;
      return [`${num(onResponses, 2)} vs ${num(onChat, 2)}`, quotient];
    }),
  ]);
  return [
    `The Responses API against chat: gateway/floor requests/s on each (medians), and their quotient (per round, then the median; target ≥ ${(1 - WITHIN).toFixed(2)} with store: false, where the gateway does what chat does plus the mapping; stored, each call also commits its response)`,
    ...table([['scenario', ...gateways.flatMap((g) => [`${g.label}: Responses vs chat`, 'quotient'])]], rows),
  ];
}
