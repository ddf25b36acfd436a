import type { Call, JsonObject } from '../../src/plugin-api.js';

/**
 * A relayed reference completion, or a chunk of its stream, noted as its caller got it (the
 * same format: `call.noteAnswer`): its id, each choice's `finish_reason` as sent, and the text
 * when the notes keep it (a message's or a delta's `content`, then its `refusal`, as the formats
 * note a refusal; a legacy completion's `text`).
 */
export function noteReferenceChoices(notes: NonNullable<Call['answerNotes']>, body: JsonObject): void {
  if (typeof body['id'] === 'string') notes.id = body['id'];
  const choices = body['choices'];
  if (!Array.isArray(choices)) return;
  (choices as Array<JsonObject | null>).forEach((choice, position) => {
    if (!choice) return;
    const index = typeof choice['index'] === 'number' ? choice['index'] : position;
    if (typeof choice['finish_reason'] === 'string') notes.finished(index, choice['finish_reason']);
    const message = (choice['message'] ?? choice['delta']) as JsonObject | undefined;
    const text = message?.['content'] ?? choice['text'];
    if (typeof text === 'string') notes.text(index, text);
    const refusal = message?.['refusal'];
    if (typeof refusal === 'string') notes.text(index, refusal);
  });
}
