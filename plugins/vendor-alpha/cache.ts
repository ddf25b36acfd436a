import type { JsonObject } from '../../src/plugin-api.js';
import type { CacheBreakpoint, NeutralRequest } from '../../src/toolkit/neutral.js';
import type { Adjust } from './structured.js';

/**
 * Prompt-cache breakpoints in alpha's request (docs/caching.md): each the caller set becomes a
 * `cache_control` on the block, tool or system text it follows, and automatic caching the
 * top-level one. Alpha refuses a request with more than four (a 400); of more, the last four are
 * kept (the longest prefixes, which the vendor reads first) and each earlier one is left out,
 * announced in `x-gateway-adjusted` as `<param>=dropped:limit`.
 */

/** The vendor's limit of breakpoints per request, a top-level `cache_control` counting as one. */
export const MAX_BREAKPOINTS = 4;

export const cacheControl = (cache: CacheBreakpoint): JsonObject => (cache.ttl === null ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: cache.ttl });

/** A breakpoint as written, and where it stands in the body. */
interface Written {
  cache: CacheBreakpoint;
  holder: JsonObject;
}

const listed = (value: unknown): JsonObject[] => (Array.isArray(value) ? (value as JsonObject[]) : []);

/**
 * Writes the request's breakpoints into `body` (its tools, system blocks and messages already
 * written from `request`, in the same order), the last four of them in prompt order: tools,
 * system, messages, then the top-level one.
 */
export function writeBreakpoints(request: NeutralRequest, body: JsonObject, adjust: Adjust): void {
  // A request without any (most) is left as written, after a look at each part and tool.
  const partsMarked = request.turns.some((turn) => turn.parts.some((part) => part.cache !== undefined));
  if (!partsMarked && !request.tools.some((tool) => tool.cache !== undefined) && !request.systemCache && !request.cache) return;
  const written: Written[] = [];
  const tools = listed(body['tools']);
  request.tools.forEach((tool, i) => {
    const holder = tools[i];
    if (tool.cache && holder) written.push({ cache: tool.cache, holder });
  });
  const system = listed(body['system']);
  for (const [i, cache] of request.systemCache ?? []) {
    const holder = system[i];
    if (holder) written.push({ cache, holder });
  }
  // The messages' blocks are the turns' parts in order (reasoning carries no breakpoint), so the
  // n-th part with one is the n-th block marked.
  const parts = request.turns.flatMap((turn) => turn.parts.flatMap((part) => (part.cache && part.type !== 'reasoning' ? [part.cache] : [])));
  const marked = listed(body['messages']).flatMap((message) => listed(message['content']).filter((block) => block['cache_control'] !== undefined));
  parts.forEach((cache, i) => {
    const holder = marked[i];
    if (holder) written.push({ cache, holder });
  });
  if (request.cache) written.push({ cache: request.cache, holder: body });
  const over = written.length - MAX_BREAKPOINTS;
  written.forEach(({ cache, holder }, i) => {
    if (i >= over) {
      holder['cache_control'] = cacheControl(cache);
      return;
    }
    delete holder['cache_control'];
    adjust(
      cache.param,
      'dropped:limit',
      `${cache.param}: this model takes at most ${MAX_BREAKPOINTS} cache breakpoints a request (${written.length} were set); set at most ${MAX_BREAKPOINTS}.`,
    );
  });
}
