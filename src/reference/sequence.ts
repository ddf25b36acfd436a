import type { JsonObject } from '../chain/call.js';
import { invalidRequest } from '../http/errors.js';
import type { CacheBreakpoint, ImageSource, Part, ToolChoice, ToolSpec, Turn } from '../neutral/request.js';

/**
 * The message-sequence rules every non-reference vendor needs (docs/vendor-formats.md#message-sequence-normalisation),
 * shared by every ingress format that reads a conversation into neutral turns (the chat
 * format's `messages`, the Responses API's `input` items): system text hoisted, empty parts
 * dropped, consecutive same-role turns merged (tool results count as the user's and go first in
 * their turn), every tool result named after the call it answers, every call answered in the
 * very next turn. Each format names its own fields in the 400s.
 */

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]*)$/i;

/** An image URL (a base64 data URL, or http(s)) as a neutral source; `field` is the URL's own parameter, e.g. `…image_url.url`. */
export function imageSource(url: unknown, param: string, field: string): ImageSource {
  if (typeof url !== 'string' || url === '') throw invalidRequest(`${field} must be a data URL or an http(s) URL.`, param);
  const data = DATA_URL.exec(url);
  if (data) {
    const mediaType = (data[1] as string).toLowerCase();
    if (!mediaType.startsWith('image/')) throw invalidRequest(`${param} is a data URL of ${mediaType}, not an image.`, param);
    return { kind: 'data', mediaType, data: (data[2] as string).replace(/\s/g, '') };
  }
  if (url.startsWith('data:')) throw invalidRequest(`${param} must be a base64 data URL (data:<mime>;base64,<payload>).`, param);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidRequest(`${field} is not a valid URL.`, param);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw invalidRequest(`${param} must be an http(s) URL or a data URL.`, param);
  return { kind: 'url', url };
}

const TTLS: ReadonlySet<unknown> = new Set(['5m', '1h']);

/**
 * A caller's cache breakpoint, the member `field` of `holder` (`cache_control`,
 * `prompt_cache_breakpoint`): `{"type": "ephemeral"}` with an optional `ttl` of `5m` or `1h`, as
 * alpha takes it; absent or null, none. `at` names the holder (`messages[0].content[1]`): the
 * parameter, built only when there is a breakpoint.
 */
export function cacheBreakpoint(holder: JsonObject, field: string, at: string | (() => string)): CacheBreakpoint | undefined {
  const raw = holder[field];
  if (raw === undefined || raw === null) return undefined;
  const param = `${typeof at === 'string' ? at : at()}.${field}`;
  const ttl = isObject(raw) ? (raw['ttl'] ?? null) : undefined;
  if (!isObject(raw) || raw['type'] !== 'ephemeral' || (ttl !== null && !TTLS.has(ttl)) || Object.keys(raw).some((key) => key !== 'type' && key !== 'ttl')) {
    throw invalidRequest(`${param} must be {"type": "ephemeral"}, with an optional ttl of "5m" or "1h".`, param);
  }
  return { ttl: ttl as CacheBreakpoint['ttl'], param };
}

/**
 * The breakpoint a system, developer or tool message's parts set: the message is one text to the
 * vendor, so a marker (`field` of a part) on any of its parts marks the end of the message; the
 * parts' parameters are `partParam(j)`.
 */
export function messageBreakpoint(content: unknown, field: string, partParam: (j: number) => string): CacheBreakpoint | undefined {
  if (!Array.isArray(content)) return undefined;
  let cache: CacheBreakpoint | undefined;
  content.forEach((part: unknown, j) => {
    if (isObject(part)) cache = cacheBreakpoint(part, field, () => partParam(j)) ?? cache;
  });
  return cache;
}

/**
 * Automatic caching (a breakpoint after the prompt's last block), asked of alpha by a chat or
 * Responses `prompt_cache_key` or `prompt_cache_retention` (docs/caching.md): retention `24h` is
 * the vendor's longest, an hour; otherwise its default, 5 minutes.
 */
export function automaticCache(body: JsonObject): CacheBreakpoint | undefined {
  const retention = body['prompt_cache_retention'];
  if (typeof retention === 'string') return { ttl: retention === '24h' ? '1h' : null, param: 'prompt_cache_retention' };
  return typeof body['prompt_cache_key'] === 'string' ? { ttl: null, param: 'prompt_cache_key' } : undefined;
}

/** A tool call's arguments: a JSON string of an object; `""`/null/absent read as `{}`. */
export function toolArguments(raw: unknown, param: string): JsonObject {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw !== 'string') throw invalidRequest(`${param} must be a JSON string.`, param);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalidRequest(`${param} is not valid JSON.`, param);
  }
  if (!isObject(value)) throw invalidRequest(`${param} must encode a JSON object.`, param);
  return value;
}

/** A tool choice naming a function must name one of the tools (rule 10). */
export function namedToolChoice(name: string, tools: readonly ToolSpec[], param: string): ToolChoice {
  if (!tools.some((tool) => tool.name === name)) throw invalidRequest(`${param} names '${name}', which is not in tools.`, param);
  return { name };
}

/** A JSON output schema must describe an object at its root (rule 11); absent means any object. */
export function objectSchema(schema: unknown, param: string): JsonObject {
  const value = schema ?? { type: 'object' };
  if (!isObject(value) || (value['type'] !== undefined && value['type'] !== 'object')) {
    throw invalidRequest(`${param} must describe a JSON object at its root.`, param);
  }
  return value;
}

/** How a format names, in its 400s, the field holding the conversation and its tool results and calls. */
export interface SequenceWords {
  /** The conversation's field: `messages`, `input`. */
  param: string;
  /** What a tool result is called: `tool message`, `function_call_output`. */
  result: string;
  /** What a tool call is made by: `assistant message`, `function_call`. */
  call: string;
}

/** A conversation read turn by turn into the neutral system text and turns. */
export class TurnSequence {
  readonly system: string[] = [];
  readonly turns: Turn[] = [];
  /** Breakpoints after system texts, by index; created by the first. */
  private systemCache: Map<number, CacheBreakpoint> | undefined;
  /** Tool-call id → function name, from the assistant turns read so far. */
  private readonly callNames = new Map<string, string>();

  /** System or developer text, hoisted in order (rule 1), with a cache breakpoint after it if one was set; empty text is dropped. */
  addSystem(text: string, cache?: CacheBreakpoint): void {
    if (text === '') return;
    this.system.push(text);
    if (cache) (this.systemCache ??= new Map()).set(this.system.length - 1, cache);
  }

  /** Parts of one role; merged into the last turn when it is the same role's (rule 6). */
  add(role: Turn['role'], parts: readonly Part[]): void {
    if (!parts.length) return;
    const last = this.turns.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else this.turns.push({ role, parts: [...parts] });
  }

  /** A tool call of the assistant, remembered so that its result can be named after it. */
  call(id: string, name: string, args: JsonObject): Part {
    this.callNames.set(id, name);
    return { type: 'tool_call', id, name, args };
  }

  /** The function name of an earlier call, if there was one with this id. */
  nameOf(id: string): string | undefined {
    return this.callNames.get(id);
  }

  /**
   * Rules 7 to 9: results first in their turn, every result answering the turn before, every call
   * answered by the next; something left. Call ids are the conversation's own (every vendor pairs
   * by them): one used by two calls, or answered twice, is refused rather than left to a vendor.
   */
  settle(words: SequenceWords): { system: string[]; systemCache?: ReadonlyMap<number, CacheBreakpoint>; turns: Turn[] } {
    if (!this.turns.length) throw invalidRequest(`${words.param} must contain at least one user or assistant message with content.`, words.param);
    const callIds = new Set<string>();
    this.turns.forEach((turn, t) => {
      if (turn.role === 'user') {
        turn.parts.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
        const previous = this.turns[t - 1];
        const answered = new Set<string>();
        for (const part of turn.parts) {
          if (part.type !== 'tool_result') continue;
          const made = previous?.parts.some((p) => p.type === 'tool_call' && p.id === part.id);
          if (!made) throw invalidRequest(`The ${words.result} answering '${part.id}' must follow the ${words.call} that made that call.`, words.param);
          if (answered.has(part.id)) throw invalidRequest(`The tool call '${part.id}' is answered by more than one ${words.result}.`, words.param);
          answered.add(part.id);
        }
        return;
      }
      const results = new Set(this.turns[t + 1]?.parts.flatMap((p) => (p.type === 'tool_result' ? [p.id] : [])) ?? []);
      for (const part of turn.parts) {
        if (part.type !== 'tool_call') continue;
        if (callIds.has(part.id))
          throw invalidRequest(`The tool call id '${part.id}' is used by more than one call; each call needs an id of its own.`, words.param);
        callIds.add(part.id);
        if (!results.has(part.id))
          throw invalidRequest(`The tool call '${part.id}' has no ${words.result} answering it right after its ${words.call}.`, words.param);
      }
    });
    return this.systemCache ? { system: this.system, systemCache: this.systemCache, turns: this.turns } : { system: this.system, turns: this.turns };
  }
}
