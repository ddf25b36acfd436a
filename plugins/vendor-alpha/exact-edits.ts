import type { JsonObject } from '../../src/plugin-api.js';
import { elementsAt, isObjectAt, named, objectAt, skipSpace, spliced, type Edit, type ObjectSpans, type Span } from './json-spans.js';

/**
 * The passthrough's changes made in the bytes that came (docs/formats/messages.md#alpha): a value
 * that must change is written where it stood, and every other byte — numbers such as
 * 12345678901234567891 or 1.10, escapes, spacing — stays as it came. The exception is a member to
 * change (or to go through) standing twice in its object: JSON.parse read the last, another reader
 * may read the first, so there only a text written from the parsed value — what the gateway read
 * and checked — says one thing. The functions then answer null and the caller writes the whole
 * body so; a thinking block is written whole instead.
 */

/** The edit that sets the member `key` of `object` to `value` where it stands (added last when absent, as a spread would); null when it stands twice. */
function setMember(object: ObjectSpans, key: string, value: unknown): Edit | null {
  const [found, twice] = named(object, key);
  if (twice) return null;
  const text = JSON.stringify(value);
  if (found) return { start: found.start, end: found.end, text };
  const last = object.members.at(-1);
  const at = last ? last.end : object.start + 1;
  return { start: at, end: at, text: `${last ? ',' : ''}${JSON.stringify(key)}:${text}` };
}

/** The JSON text with the member at `path` (`['message', 'model']`) set to `value`; null also when an object on the way is absent or no object. */
export function withMember(bytes: Buffer, path: readonly string[], value: unknown): Buffer | null {
  let object = objectAt(bytes, skipSpace(bytes, 0));
  for (const key of path.slice(0, -1)) {
    const [found, twice] = named(object, key);
    if (!found || twice || !isObjectAt(bytes, found.start)) return null;
    object = objectAt(bytes, found.start);
  }
  const edit = setMember(object, path.at(-1) as string, value);
  return edit && spliced(bytes, [edit]);
}

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
    const edit = setMember(top, 'model', model);
    if (!edit) return null;
    edits.push(edit);
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
    const object = objectAt(raw, span.start);
    const edits = keys.filter((key) => taken[key] !== block[key]).map((key) => setMember(object, key, taken[key]));
    if (edits.every((edit): edit is Edit => edit !== null)) return edits;
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
