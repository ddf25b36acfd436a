/**
 * Where the members and elements of a JSON text stand, byte by byte, so that the passthrough can
 * change one value and leave every other byte as it came: writing the parsed value again would
 * change numbers (12345678901234567891, 1.10), escapes and spacing. The texts read here have been
 * parsed already, so they are valid JSON; their structural characters are ASCII, which no byte
 * of a multi-byte UTF-8 sequence is, so bytes are scanned without decoding.
 */

/** A value: its first byte and the byte after its last. */
export interface Span {
  start: number;
  end: number;
}

export interface Member extends Span {
  /** The member's name, unescaped. */
  key: string;
}

/** An object: where its `{` stands, and its members' values in text order, duplicates included. */
export interface ObjectSpans {
  start: number;
  members: Member[];
}

/** Bytes from `start` to `end` replaced by `text`. */
export interface Edit extends Span {
  text: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isSpace = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const endsScalar = (byte: number | undefined): boolean =>
  byte === undefined || byte === COMMA || byte === CLOSE_OBJECT || byte === CLOSE_ARRAY || isSpace(byte);

export function skipSpace(bytes: Buffer, at: number): number {
  while (isSpace(bytes[at])) at++;
  return at;
}

/**
 * The byte after the string whose opening quote is at `at`: after the first quote not escaped (an
 * even run of backslashes before it). Here and below, a value cut short ends with the text.
 */
function stringEnd(bytes: Buffer, at: number): number {
  for (let quote = bytes.indexOf(QUOTE, at + 1); quote !== -1; quote = bytes.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return bytes.length;
}

/** The byte after the value that starts at `at`; strings are skipped whole, so brackets inside them do not count. */
export function valueEnd(bytes: Buffer, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return stringEnd(bytes, at);
  let end = at + 1;
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    while (!endsScalar(bytes[end])) end++;
    return end;
  }
  for (let depth = 1; depth > 0 && end < bytes.length; end++) {
    const byte = bytes[end];
    if (byte === QUOTE) end = stringEnd(bytes, end) - 1;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
  }
  return end;
}

/** The entries of the array or object at `at`: a member's name unescaped, an element's ''. */
function entriesAt(bytes: Buffer, at: number): Member[] {
  const hasNames = bytes[at] === OPEN_OBJECT;
  const entries: Member[] = [];
  let next = skipSpace(bytes, at + 1);
  while (next < bytes.length && bytes[next] !== CLOSE_OBJECT && bytes[next] !== CLOSE_ARRAY) {
    let key = '';
    if (hasNames) {
      const nameEnd = stringEnd(bytes, next);
      const name = bytes.toString('utf8', next + 1, nameEnd - 1);
      // A name written with escapes (`"mod\u0065l"`) is the name JSON.parse read.
      key = name.includes('\\') ? (JSON.parse(`"${name}"`) as string) : name;
      next = skipSpace(bytes, skipSpace(bytes, nameEnd) + 1);
    }
    const end = valueEnd(bytes, next);
    entries.push({ key, start: next, end });
    next = skipSpace(bytes, end);
    if (bytes[next] === COMMA) next = skipSpace(bytes, next + 1);
  }
  return entries;
}

/** The members of the object whose `{` is at `at`. */
export function objectAt(bytes: Buffer, at: number): ObjectSpans {
  return { start: at, members: entriesAt(bytes, at) };
}

/** The members of `object` named `key`: one, none, or more when the name stands twice. */
export const named = (object: ObjectSpans, key: string): Member[] => object.members.filter((member) => member.key === key);

export const isObjectAt = (bytes: Buffer, at: number): boolean => bytes[at] === OPEN_OBJECT;

/** The elements of the array whose `[` is at `at`. */
export function elementsAt(bytes: Buffer, at: number): Span[] {
  return entriesAt(bytes, at);
}

/** The bytes with the edits made (they do not overlap); the bytes between them are the same bytes. */
export function spliced(bytes: Buffer, edits: Edit[]): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    parts.push(bytes.subarray(at, edit.start), Buffer.from(edit.text));
    at = edit.end;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}
