import t from 'tap';
import { contentAttributes, CONTENT_LIMIT_BYTES } from '../../plugins/telemetry/content.js';
import { AnswerNotes } from '../../src/chain/answer-notes.js';
import type { Call } from '../../src/plugin-api.js';
import type { NeutralRequest, Turn } from '../../src/toolkit/neutral.js';

/** The opted-in content attributes (docs/telemetry.md#message-content-opt-in): their shape and their bound. */

const bytes = (value: unknown): number => Buffer.byteLength(String(value));

function callWith(turns: Turn[], notes: AnswerNotes | null, system: string[] = []): Call {
  return { requestForReport: () => ({ system, turns }) as unknown as NeutralRequest, answerNotes: notes } as unknown as Call;
}

const user = (text: string): Turn => ({ role: 'user', parts: [{ type: 'text', text }] });

t.test('the notes: finish reasons by choice, text only when asked and within its bound', async (t) => {
  const plain = new AnswerNotes(false, 0);
  plain.text(0, 'words');
  plain.finished(1, 'length');
  plain.finished(0, 'stop');
  t.equal(plain.texts, null, 'no text kept unless asked');
  t.same(plain.finishReasons, ['stop', 'length'], 'one reason per choice, by index');
  plain.finished(1e9, 'stop');
  plain.finished(-1, 'stop');
  plain.finished(0.5, 'stop');
  t.equal(plain.finishReasons.length, 2, "an upstream's index out of bounds is not noted: the notes stay small");
  const kept = new AnswerNotes(true, 10);
  kept.text(0, 'abcdef');
  kept.text(1, 'ghijkl');
  kept.text(0, 'more');
  t.same(kept.texts, ['abcdef…', 'ghij…'], 'ten characters in all, then nothing: each choice that lost text ends with …');
  const whole = new AnswerNotes(true, 100);
  whole.reply('id-1', [{ content: 'hello', refusal: null, toolCalls: [], finish: 'stop' }], () => 'end_turn');
  t.same({ id: whole.id, reasons: whole.finishReasons, texts: whole.texts }, { id: 'id-1', reasons: ['end_turn'], texts: ['hello'] }, 'a whole reply');
});

t.test('the input, system instructions and output as the conventions write them', async (t) => {
  const notes = new AnswerNotes(true, 100);
  notes.id = 'msg_1';
  notes.finished(0, 'tool_use');
  notes.text(0, 'Let me look.');
  const turns: Turn[] = [
    user('What is the weather?'),
    { role: 'assistant', parts: [{ type: 'reasoning', text: 'hidden', state: null }] },
    { role: 'user', parts: [{ type: 'tool_result', id: 'call_1', name: 'weather', content: 'sunny' }] },
  ];
  const attributes = contentAttributes(callWith(turns, notes, ['Be brief']));
  t.same(JSON.parse(String(attributes['gen_ai.system_instructions'])), [{ type: 'text', content: 'Be brief' }]);
  t.same(JSON.parse(String(attributes['gen_ai.input.messages'])), [
    { role: 'user', parts: [{ type: 'text', content: 'What is the weather?' }] },
    { role: 'assistant', parts: [] },
    { role: 'user', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'sunny' }] },
  ]);
  t.same(JSON.parse(String(attributes['gen_ai.output.messages'])), [
    { role: 'assistant', parts: [{ type: 'text', content: 'Let me look.' }], finish_reason: 'tool_use' },
  ]);
});

t.test('each attribute within the bound, whatever the text: multi-byte, escaped, many messages', async (t) => {
  const emoji = '🌊'.repeat(20_000);
  const escaped = '"\n\\'.repeat(20_000);
  for (const [what, text] of [
    ['4-byte characters', emoji],
    ['characters JSON escapes', escaped],
  ] as const) {
    const notes = new AnswerNotes(true, CONTENT_LIMIT_BYTES);
    notes.text(0, text);
    const attributes = contentAttributes(callWith([user(text)], notes, [text]));
    for (const name of ['gen_ai.system_instructions', 'gen_ai.input.messages', 'gen_ai.output.messages']) {
      const value = attributes[name];
      t.ok(bytes(value) <= CONTENT_LIMIT_BYTES && bytes(value) > CONTENT_LIMIT_BYTES - 64, `${what}: ${name} fills the bound (${bytes(value)} bytes)`);
      const parsed = JSON.parse(String(value));
      const parts = name === 'gen_ai.system_instructions' ? parsed : parsed[0].parts;
      t.ok(String(parts[0].content).endsWith('…'), `${what}: ${name}'s cut text ends with …`);
    }
  }
  const many = Array.from({ length: 2000 }, (_, i) => user(`message ${i}`));
  const value = String(contentAttributes(callWith(many, null))['gen_ai.input.messages']);
  const messages = JSON.parse(value);
  t.ok(bytes(value) <= CONTENT_LIMIT_BYTES, `2000 messages: within the bound (${bytes(value)} bytes)`);
  t.same(messages.at(-1), { role: 'user', parts: [{ type: 'text', content: 'message 1999' }] }, 'the latest message kept whole');
  t.ok(messages.length < 2000 && messages[0].parts[0].content !== 'message 0', 'the oldest left out');
});

t.test('a request no format reads: no input, the output still', async (t) => {
  const notes = new AnswerNotes(true, 100);
  notes.text(0, 'hello');
  const call = {
    requestForReport(): NeutralRequest {
      throw new Error('unreadable');
    },
    answerNotes: notes,
  } as unknown as Call;
  const attributes = contentAttributes(call);
  t.equal(attributes['gen_ai.input.messages'], undefined);
  t.ok(attributes['gen_ai.output.messages']);
});
