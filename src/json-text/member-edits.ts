import { isObjectAt, named, objectAt, skipSpace, spliced, type Edit, type ObjectSpans } from './spans.js';

/**
 * Members changed in the bytes that came, for the passthroughs to a vendor that speaks the
 * caller's format: the value that must change is written where it stood, and every other byte —
 * numbers such as 12345678901234567891 or 1.10, escapes, spacing — stays as it came, and a 400 KB
 * prompt is not written again to change its model. The exception is a member to change standing
 * twice in its object: JSON.parse read the last, another reader may read the first, so there only
 * a text written from the parsed value — what the gateway read and checked — says one thing. The
 * functions then answer null and the caller writes the whole body so.
 */

/**
 * The edits that set each of `values`' members of `object` where it stands; the absent ones are
 * added last, in `values`' order, as `{ ...object, ...values }` would place them. Null when one
 * stands twice.
 */
export function memberEdits(object: ObjectSpans, values: Readonly<Record<string, unknown>>): Edit[] | null {
  const edits: Edit[] = [];
  const added: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    const [found, twice] = named(object, key);
    if (twice) return null;
    if (found) edits.push({ start: found.start, end: found.end, text: JSON.stringify(value) });
    else added.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
  }
  if (added.length) {
    const last = object.members.at(-1);
    const at = last ? last.end : object.start + 1;
    edits.push({ start: at, end: at, text: `${last ? ',' : ''}${added.join(',')}` });
  }
  return edits;
}

/** The JSON object text with `values` set at the object at `path` (`[]` the top level, `['message']` one inside); null also when an object on the way is absent or no object. */
export function withMembers(bytes: Buffer, path: readonly string[], values: Readonly<Record<string, unknown>>): Buffer | null {
  let object = objectAt(bytes, skipSpace(bytes, 0));
  for (const key of path) {
    const [found, twice] = named(object, key);
    if (!found || twice || !isObjectAt(bytes, found.start)) return null;
    object = objectAt(bytes, found.start);
  }
  const edits = memberEdits(object, values);
  return edits && spliced(bytes, edits);
}
