import t from 'tap';
import { noteReferenceChoices } from '../../plugins/vendor-gamma/answer-notes.js';
import { AnswerNotes } from '../../src/chain/answer-notes.js';

/** A reference answer gamma relays to a chat caller, noted as the caller got it (docs/telemetry.md#what-was-answered). */

t.test('a whole completion: its id, each choice by its index, the text and a refusal', async (t) => {
  const notes = new AnswerNotes(true, 100);
  noteReferenceChoices(notes, {
    id: 'chatcmpl-up',
    choices: [
      { index: 1, message: { content: null, refusal: 'I cannot help.' }, finish_reason: 'content_filter' },
      { index: 0, message: { content: 'Hello', refusal: null }, finish_reason: 'stop' },
      null,
      7,
    ],
  });
  t.same(
    { id: notes.id, reasons: notes.finishReasons, texts: notes.texts },
    { id: 'chatcmpl-up', reasons: ['stop', 'content_filter'], texts: ['Hello', 'I cannot help.'] },
  );
});

t.test("a stream's chunks: deltas and refusal deltas in order, the finish when it comes", async (t) => {
  const notes = new AnswerNotes(true, 100);
  for (const chunk of [
    { id: 'chatcmpl-s', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { id: 'chatcmpl-s', choices: [{ index: 0, delta: { refusal: 'No.' }, finish_reason: null }] },
    { id: 'chatcmpl-s', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { id: 'chatcmpl-s', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } },
  ]) {
    noteReferenceChoices(notes, chunk);
  }
  t.same({ id: notes.id, reasons: notes.finishReasons, texts: notes.texts }, { id: 'chatcmpl-s', reasons: ['stop'], texts: ['No.'] });
});
