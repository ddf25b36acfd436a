import t from 'tap';
import { clearThinking, thinkingTurnsKept } from '../../plugins/ingress-messages/context-edits.js';
import type { Part, Turn } from '../../src/neutral/request.js';
import { thrown } from '../helpers/translate.js';

/** `context_management` edits for the translated families, against literal turns (docs/formats/messages.md#context-management). */

const state = (data: string) => ({ family: 'beta', kind: 'thought_signature', data }) as const;
const thought = (data: string): Part => ({ type: 'reasoning', text: '', state: state(data) });
const user = (text: string): Turn => ({ role: 'user', parts: [{ type: 'text', text }] });
const answer = (data: string, text: string): Turn => ({ role: 'assistant', parts: [thought(data), { type: 'text', text }] });
const signedCall = (data: string, id: string): Turn => ({ role: 'assistant', parts: [{ type: 'tool_call', id, name: 'f', args: {}, state: state(data) }] });
const result = (id: string): Turn => ({ role: 'user', parts: [{ type: 'tool_result', id, name: 'f', content: 'r' }] });
const stripped = (turn: Turn): Turn => ({
  role: turn.role,
  parts: turn.parts.flatMap((part): Part[] =>
    part.type === 'reasoning' ? [] : part.type === 'tool_call' ? [{ type: 'tool_call', id: part.id, name: part.name, args: part.args }] : [part],
  ),
});

t.test('which edits ask what', async (t) => {
  t.equal(thinkingTurnsKept(undefined), null, 'none asked');
  t.equal(thinkingTurnsKept({ edits: [] }), null);
  t.equal(thinkingTurnsKept({ edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }), Infinity, "Claude Code's default: all kept");
  t.equal(thinkingTurnsKept({ edits: [{ type: 'clear_thinking_20251015' }] }), 1, "alpha's default keep: the last turn");
  t.equal(thinkingTurnsKept({ edits: [{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 3 } }] }), 3);
  t.match(
    thrown(() => thinkingTurnsKept({ edits: [{ type: 'clear_tool_uses_20250919' }] })),
    { status: 400, param: 'context_management.edits[0]' },
  );
  t.match(
    thrown(() => thinkingTurnsKept({ edits: 'x' })),
    { status: 400, param: 'context_management' },
  );
});

t.test('thinking of all but the last kept turns is left out; the tool loop in progress keeps its own', async (t) => {
  const turns = [user('a'), answer('s1', 'A'), user('b'), answer('s2', 'B'), user('c'), answer('s3', 'C'), user('d')];
  t.same(clearThinking(turns, Infinity), turns, 'keep all: nothing cleared');
  t.same(clearThinking(turns, 1), [user('a'), stripped(turns[1] as Turn), user('b'), stripped(turns[3] as Turn), user('c'), turns[5], user('d')]);
  t.same(
    clearThinking(turns, 0),
    turns.map((turn) => (turn.role === 'assistant' ? stripped(turn) : turn)),
    'keep 0 clears every finished turn',
  );
  const loop = [user('a'), answer('s1', 'A'), user('b'), signedCall('s2', 'c1'), result('c1'), signedCall('s3', 'c2'), result('c2')];
  t.same(clearThinking(loop, 0), [user('a'), stripped(loop[1] as Turn), ...loop.slice(2)], 'the calls after the last user text keep their signatures');
});
