import type { Comparison } from './compare.js';
import { paired, pairedQuotient, ratio } from './figures.js';
import { num, table, withVerdict, type Row } from './lib/table.js';
import { gatewaysOf } from './lib/targets.js';
import type { ScenarioId } from './lib/workload.js';

/**
 * The Responses API against the chat format, on the same family: each gateway's share of the
 * floor on a Responses scenario, divided by its share on the chat scenario it maps to, per
 * round (both scenarios' floors relay the same chat request), then the median over rounds.
 * Within 10 % means the format's mapping costs about what chat's own handling does.
 */

const PAIRS: ReadonlyArray<{ label: string; responses: ScenarioId; chat: ScenarioId }> = [
  { label: 'gamma, non-streamed', responses: 'responses-json', chat: 'gamma-json' },
  { label: 'gamma, streamed (20 chunks)', responses: 'responses-stream', chat: 'gamma-stream' },
];

/** How far the Responses ratio may fall from the chat ratio (as a share of it). */
const WITHIN = 0.1;

export function ingressSection(c: Comparison): string[] {
  if (!c.targets.some((t) => t.kind === 'floor')) return [];
  const gateways = gatewaysOf(c.targets);
  const rps = (m: { result: { rps: number } }): number => m.result.rps;
  const rows = PAIRS.map(({ label, responses, chat }): Row => [
    label,
    ...gateways.flatMap((g) => {
      const onResponses = paired(c.closed, responses, [g.id, 'floor'], rps, ratio);
      const onChat = paired(c.closed, chat, [g.id, 'floor'], rps, ratio);
      const share = pairedQuotient(c.closed, [responses, chat], [g.id, 'floor'], rps);
      return [`${num(onResponses, 2)} vs ${num(onChat, 2)}`, withVerdict(num(share, 2), share, share >= 1 - WITHIN)];
    }),
  ]);
  return [
    `The Responses API against chat: gateway/floor requests/s on each (medians), and their quotient (per round, then the median; target ≥ ${(1 - WITHIN).toFixed(2)})`,
    ...table([['scenario', ...gateways.flatMap((g) => [`${g.label}: Responses vs chat`, 'quotient'])]], rows),
  ];
}
