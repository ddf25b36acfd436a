/**
 * The text of a chunk that carries nothing but one text delta of choice 0, read without
 * `JSON.parse`: most chunks of a stream are such, and a stream translated for another format
 * (Responses, Messages) would otherwise parse every one of them into objects it then drops.
 *
 * Only this exact shape is read here; anything else returns null and takes the parsed path:
 *
 *     {<scalar members>,"choices":[{"index":0,"delta":{"content":"…"},"logprobs":null,"finish_reason":null}]}
 *
 * optionally followed by `,"usage":null` before the closing brace. The members before `choices`
 * must be scalars (no `{` or `[` before it), so its `choices` is the object's own; and must not
 * name `usage` or `error`. Inside JSON strings every quote is escaped, so these checks cannot be
 * fooled by text; a string that merely looks like a key (`"error"` as a value) only sends the
 * chunk to the parsed path.
 */

const HEAD = '"choices":[{"index":0,"delta":{"content":"';
const TAIL = '"},"logprobs":null,"finish_reason":null}]';
const NULL_USAGE_END = ',"usage":null}';
/** Offsets of the first `[` and of the second `{` in HEAD. */
const ARRAY_AT = HEAD.indexOf('[');
const CHOICE_AT = HEAD.indexOf('{');
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
/** Members the parsed path must see: a usage count or an error. */
const KEY_TO_PARSE = /"(?:usage|error)"/;

/** The index of the quote that closes the string whose text starts at `from`, or -1. */
function closingQuote(data: string, from: number): number {
  let end = data.indexOf('"', from);
  while (end !== -1) {
    let slashes = 0;
    while (data.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes += 1;
    // An even run of backslashes escapes itself, not the quote.
    if (slashes % 2 === 0) return end;
    end = data.indexOf('"', end + 1);
  }
  return -1;
}

export function plainTextDelta(data: string): string | null {
  if (data.charCodeAt(0) !== OPEN_BRACE) return null;
  // Found from the first `[`, which must be choices' own (any earlier HEAD would hold an earlier
  // `[`). Fixed texts are compared as slices: V8's startsWith walks a long prefix several times
  // slower (measured 105 ns against 31 for HEAD), and this runs for every chunk of a stream.
  const at = data.indexOf('[') - ARRAY_AT;
  if (at < 1 || data.slice(at, at + HEAD.length) !== HEAD || data.indexOf('{', 1) !== at + CHOICE_AT) return null;
  // The members before choices, up to HEAD's opening quote (which would close a key ending there).
  if (KEY_TO_PARSE.test(data.slice(0, at + 1))) return null;
  const start = at + HEAD.length;
  const end = closingQuote(data, start);
  if (end === -1 || data.slice(end, end + TAIL.length) !== TAIL) return null;
  const rest = end + TAIL.length;
  const closed = data.length === rest + 1 && data.charCodeAt(rest) === CLOSE_BRACE;
  if (!closed && !(data.length === rest + NULL_USAGE_END.length && data.endsWith(NULL_USAGE_END))) return null;
  const backslash = data.indexOf('\\', start);
  if (backslash === -1 || backslash > end) return data.slice(start, end);
  // Escapes (\n, \", \uXXXX …) are decoded by the parser, on the string alone; a bad one is not ours to judge.
  try {
    return JSON.parse(data.slice(start - 1, end + 1)) as string;
  } catch {
    return null;
  }
}
