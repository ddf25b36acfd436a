import { invalidRequest } from '../http/errors.js';
import type { Part, Turn } from './request.js';

/**
 * The message-sequence rules every format's reader applies to the turns it builds
 * (docs/vendor-formats.md#message-sequence-normalisation), so that each vendor gets turns that
 * alternate, tool results first in their turn, every call answered in the very next turn.
 */

/** Adds parts to the conversation: consecutive parts of the same role make one turn. Nothing for no parts. */
export function pushTurn(turns: Turn[], role: Turn['role'], parts: readonly Part[]): void {
  if (!parts.length) return;
  const last = turns.at(-1);
  if (last && last.role === role) last.parts.push(...parts);
  else turns.push({ role, parts: [...parts] });
}

/** Every call answered in the very next turn, every result answering a call of the turn before; results first (400 `messages` otherwise). */
export function settleToolPairs(turns: Turn[]): void {
  turns.forEach((turn, t) => {
    if (turn.role === 'user') {
      turn.parts.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
      const previous = turns[t - 1];
      for (const part of turn.parts) {
        if (part.type !== 'tool_result') continue;
        const answered = previous?.parts.some((p) => p.type === 'tool_call' && p.id === part.id);
        if (!answered) throw invalidRequest(`The tool result answering '${part.id}' must follow the assistant message that made that call.`, 'messages');
      }
      return;
    }
    const results = new Set(turns[t + 1]?.parts.flatMap((p) => (p.type === 'tool_result' ? [p.id] : [])) ?? []);
    for (const part of turn.parts) {
      if (part.type === 'tool_call' && !results.has(part.id)) {
        throw invalidRequest(`The tool call '${part.id}' has no tool result answering it right after its assistant message.`, 'messages');
      }
    }
  });
}
