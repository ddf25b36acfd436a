import type { JsonObject } from '../../src/plugin-api.js';
import { elementsAt, memberEdits, named, objectAt, skipSpace, spliced, type Edit, type Span } from '../../src/toolkit/json-text.js';

/**
 * The passthrough's changes to the thinking blocks of a request, made in the bytes that came
 * (docs/formats/messages.md#alpha), as the json-text toolkit makes its member changes: a member
 * that stands twice makes them answer null, and the caller writes the whole body from its parsed
 * value; a thinking block that cannot keep its members is written whole instead.
 */

/**
 * The request body with `model` set to the upstream name and, when `messages` is given
 * (foreign-thinking.ts's answer for the body's messages, `take` its answer for one block), the
 * thinking blocks sealed by the gateway as alpha takes them: a block out of its envelope gets its signature where the old one
 * stood, a redacted one is written as the `redacted_thinking` block it becomes, and another
 * family's is taken out with its comma.
 */
export function upstreamBody(raw: Buffer, body: JsonObject, model: string, messages: unknown[] | null, take: (block: unknown) => unknown): Buffer | null {
  const top = objectAt(raw, skipSpace(raw, 0));
  const edits: Edit[] = [];
  if (body['model'] !== model) {
    const modelEdits = memberEdits(top, { model });
    if (!modelEdits) return null;
    edits.push(...modelEdits);
  }
  if (messages) {
    const [found, twice] = named(top, 'messages');
    if (!found || twice) return null;
    const spans = elementsAt(raw, found.start);
    const sent = body['messages'] as unknown[];
    for (const [index, message] of sent.entries()) {
      if (messages[index] === message) continue;
      const changed = contentEdits(raw, spans[index] as Span, message as JsonObject, take);
      if (!changed) return null;
      edits.push(...changed);
    }
  }
  return spliced(raw, edits);
}

/** The edits of one message whose content carries the envelope; null when its `content` stands twice. */
function contentEdits(raw: Buffer, span: Span, message: JsonObject, take: (block: unknown) => unknown): Edit[] | null {
  const [found, twice] = named(objectAt(raw, span.start), 'content');
  if (!found || twice) return null;
  const spans = elementsAt(raw, found.start);
  const edits: Edit[] = [];
  const dropped = (message['content'] as unknown[]).map((block, index) => {
    const taken = take(block);
    if (taken !== block && taken !== null) edits.push(...blockEdits(raw, spans[index] as Span, block as JsonObject, taken as JsonObject));
    return taken === null;
  });
  return edits.concat(removals(spans, dropped));
}

/** A block that keeps its members (a signature out of its envelope) gets the changed values where they stood; another block is written whole. */
function blockEdits(raw: Buffer, span: Span, block: JsonObject, taken: JsonObject): Edit[] {
  const keys = Object.keys(taken);
  if (keys.join('\u0000') === Object.keys(block).join('\u0000')) {
    const changed = Object.fromEntries(keys.filter((key) => taken[key] !== block[key]).map((key) => [key, taken[key]]));
    const edits = memberEdits(objectAt(raw, span.start), changed);
    if (edits) return edits;
  }
  return [{ ...span, text: JSON.stringify(taken) }];
}

/**
 * Edits that take the elements marked `dropped` out of their array with one comma each: a run of
 * them goes from the end of the element kept before it, or, at the array's start, up to the
 * element kept after it, so the spacing around what is left stays as it was.
 */
function removals(spans: Span[], dropped: boolean[]): Edit[] {
  const edits: Edit[] = [];
  for (let first = 0; first < spans.length; first++) {
    if (!dropped[first]) continue;
    let last = first;
    while (dropped[last + 1]) last++;
    const before = spans[first - 1];
    const after = spans[last + 1];
    const end = (spans[last] as Span).end;
    if (before) edits.push({ start: before.end, end, text: '' });
    else edits.push({ start: (spans[first] as Span).start, end: after ? after.start : end, text: '' });
    first = last;
  }
  return edits;
}
