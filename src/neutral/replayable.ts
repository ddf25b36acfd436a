import { invalidRequest } from '../http/errors.js';
import type { NeutralRequest, Part, ReasoningState, Turn } from './request.js';

/**
 * The request as one vendor can be sent it. Reasoning the vendor does not replay as a part of
 * its own (another family's state; for beta and gamma, any reasoning) counts for nothing, and an
 * assistant turn with nothing else in it is left out, the turns around it merged when they are
 * the same role's. Such a turn comes from a response that only thought before it was cut short,
 * or from another family's reasoning item; sent as it is, it would be an empty message, which
 * every vendor refuses. The parts of the turns kept are unchanged (beta still reads its
 * signatures off a turn's reasoning).
 */
export function withReplayableTurns(request: NeutralRequest, replays: (state: ReasoningState | null) => boolean): NeutralRequest {
  const counts = (part: Part): boolean => part.type !== 'reasoning' || replays(part.state);
  // Nearly every request has no such turn: it is returned as it is.
  if (request.turns.every((turn) => turn.parts.some(counts))) return request;
  const turns: Turn[] = [];
  for (const turn of request.turns) {
    if (!turn.parts.some(counts)) continue;
    const last = turns.at(-1);
    if (last?.role === turn.role) turns[turns.length - 1] = { role: turn.role, parts: [...last.parts, ...turn.parts] };
    else turns.push(turn);
  }
  if (!turns.length) throw invalidRequest('The conversation holds nothing but reasoning, which this model cannot be sent.', null);
  return { ...request, turns };
}

/** For the vendors that replay no reasoning part (their state, if any, travels on other parts). */
export const replaysNone = (): boolean => false;
