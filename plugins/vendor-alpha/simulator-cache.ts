import { createHash, type Hash } from 'node:crypto';

/**
 * Prompt caching in the alpha simulator, as the vendor does it, so that caching is observable
 * (docs/caching.md#the-simulator): the prompt is read in the vendor's order (tools, system,
 * messages), block by block; a block with `cache_control`, or the last block when the request has
 * a top-level `cache_control`, is a breakpoint. The longest breakpoint prefix seen before is read
 * from the cache (`cache_read_input_tokens`); the tokens from there to the last breakpoint are
 * written to it (`cache_creation_input_tokens`); the rest is `input_tokens`. A request with a
 * one-hour breakpoint (`ttl: "1h"`) is also told how the writes split by time to live
 * (`cache_creation`): those up to its last one-hour breakpoint are written for an hour (the vendor
 * takes one-hour breakpoints before five-minute ones), the rest for five minutes. Unlike the vendor it
 * has no minimum length and no expiry: it remembers the last MAX_PREFIXES prefixes.
 * More than four breakpoints are refused as the vendor refuses them.
 */

type Json = Record<string, unknown>;

/** The vendor's limit of breakpoints per request, a top-level `cache_control` counting as one. */
export const MAX_BREAKPOINTS = 4;
/** What the simulator remembers, oldest forgotten first. */
const MAX_PREFIXES = 1000;

export class CacheRefused extends Error {}

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

const marked = (block: unknown): boolean => typeof block === 'object' && block !== null && (block as Json)['cache_control'] !== undefined;
const forAnHour = (marker: unknown): boolean => typeof marker === 'object' && marker !== null && (marker as Json)['ttl'] === '1h';

/** Every block of the prompt in the vendor's order: tools, system blocks, then each message's blocks. */
function promptBlocks(body: Json): Json[] {
  const listed = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : typeof value === 'string' ? [{ type: 'text', text: value }] : []);
  const blocks = [...listed(body['tools']), ...listed(body['system'])];
  for (const message of listed(body['messages'])) blocks.push(...listed(message['content']));
  return blocks;
}

export class SimPromptCache {
  private readonly prefixes = new Map<string, true>();

  /** Throws CacheRefused for more breakpoints than the vendor takes. */
  check(body: Json): void {
    const found = promptBlocks(body).filter(marked).length + (body['cache_control'] === undefined ? 0 : 1);
    if (found > MAX_BREAKPOINTS) throw new CacheRefused(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`);
  }

  /** How the request's `promptTokens` split into uncached, written and read tokens; `tokensOf` is a block's share of them. */
  usage(body: Json, promptTokens: number, tokensOf: (block: Json) => number): CacheUsage {
    const blocks = promptBlocks(body);
    const automatic = body['cache_control'] !== undefined;
    const hash: Hash = createHash('sha256').update(String(body['model']));
    let tokens = 0;
    let read = 0;
    let last = 0;
    let lastHour = 0;
    let hourly = forAnHour(body['cache_control']);
    const breakpoints: string[] = [];
    blocks.forEach((block, i) => {
      const { cache_control: marker, ...content } = block;
      hash.update(JSON.stringify(content));
      tokens += tokensOf(block);
      const automaticHere = automatic && i === blocks.length - 1;
      if (!marked(block) && !automaticHere) return;
      const prefix = hash.copy().digest('base64');
      breakpoints.push(prefix);
      last = tokens;
      if (forAnHour(marker) || (automaticHere && forAnHour(body['cache_control']))) {
        lastHour = tokens;
        hourly = true;
      }
      if (this.prefixes.has(prefix)) read = tokens;
    });
    for (const prefix of breakpoints) this.remember(prefix);
    const usage: CacheUsage = { input_tokens: promptTokens - last, cache_creation_input_tokens: last - read, cache_read_input_tokens: read };
    if (!hourly) return usage;
    const writtenForAnHour = Math.max(0, lastHour - read);
    usage.cache_creation = { ephemeral_5m_input_tokens: last - read - writtenForAnHour, ephemeral_1h_input_tokens: writtenForAnHour };
    return usage;
  }

  private remember(prefix: string): void {
    this.prefixes.delete(prefix);
    this.prefixes.set(prefix, true);
    if (this.prefixes.size > MAX_PREFIXES) this.prefixes.delete(this.prefixes.keys().next().value as string);
  }
}
