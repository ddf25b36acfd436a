import { invalidRequest, type JsonObject } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';
import type { Part, Turn } from '../../src/toolkit/neutral.js';

/**
 * `context_management.edits` for the families the Messages body is translated for (beta,
 * gamma; alpha's vendor applies them itself): docs/formats/messages.md#context-management.
 * - `clear_thinking_20251015` is mapped as alpha's vendor applies it: the thinking of all but
 *   the last `keep.value` assistant turns that have some is left out of the request (`keep:
 *   "all"` leaves everything: Claude Code's default, a no-op). The turns of the tool loop in
 *   progress keep theirs whatever `keep` says, as alpha's do: a vendor checks their states.
 *   Gamma replays no reasoning, so there it removes nothing.
 * - `clear_tool_uses_20250919` is refused: it clears tool results once the vendor's own count
 *   of the input passes a trigger, a count these families do not share, so which results it
 *   would clear cannot be said; sending them all would let the input grow past the point the
 *   caller relies on it being cut.
 */

/** Thinking kept when `keep` is left out: alpha's default, the last turn that has some. */
const DEFAULT_KEEP = 1;

/** How many thinking turns an edit keeps (Infinity: all), or null when no thinking edit is asked. */
export function thinkingTurnsKept(raw: unknown): number | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw) || !Array.isArray(raw['edits'])) throw invalidRequest('context_management must be an object with an edits array.', 'context_management');
  let kept: number | null = null;
  (raw['edits'] as unknown[]).forEach((edit, i) => {
    const where = `context_management.edits[${i}]`;
    const type = isObject(edit) ? edit['type'] : undefined;
    if (type === 'clear_thinking_20251015') {
      kept = Math.min(kept ?? Infinity, keepOf((edit as JsonObject)['keep'], where));
      return;
    }
    if (type === 'clear_tool_uses_20250919') {
      throw invalidRequest(
        `${where}: clearing tool uses is not supported for this model: which results to clear is decided by the vendor's own count of the input, which only alpha models have.`,
        where,
      );
    }
    throw invalidRequest(`${where}.type must be clear_thinking_20251015 for this model.`, `${where}.type`);
  });
  return kept;
}

function keepOf(keep: unknown, where: string): number {
  if (keep === undefined || keep === null) return DEFAULT_KEEP;
  if (keep === 'all') return Infinity;
  if (isObject(keep) && keep['type'] === 'thinking_turns' && Number.isSafeInteger(keep['value']) && (keep['value'] as number) >= 0)
    return keep['value'] as number;
  throw invalidRequest(`${where}.keep must be "all" or {"type": "thinking_turns", "value": n}.`, `${where}.keep`);
}

const isUserText = (turn: Turn): boolean => turn.role === 'user' && turn.parts.some((part) => part.type !== 'tool_result');

const isThinking = (part: Part): boolean => part.type === 'reasoning' || (part.type === 'tool_call' && part.state !== undefined);

/** Leaves out the thinking of all but the last `kept` assistant turns that have some, and of none in the tool loop in progress. */
export function clearThinking(turns: readonly Turn[], kept: number): Turn[] {
  if (kept === Infinity) return [...turns];
  // The tool loop in progress: the turns after the last user turn that is more than tool results.
  let loopStart = turns.length;
  while (loopStart > 0 && !isUserText(turns[loopStart - 1] as Turn)) loopStart -= 1;
  let left = kept;
  const out = [...turns];
  for (let t = out.length - 1; t >= 0; t--) {
    const turn = out[t] as Turn;
    if (turn.role !== 'assistant' || !turn.parts.some(isThinking)) continue;
    if (t >= loopStart || left > 0) {
      left -= 1;
      continue;
    }
    out[t] = {
      role: 'assistant',
      parts: turn.parts.flatMap((part): Part[] =>
        part.type === 'reasoning' ? [] : part.type === 'tool_call' ? [{ type: 'tool_call', id: part.id, name: part.name, args: part.args }] : [part],
      ),
    };
  }
  return out;
}
