import type { Logger } from 'pino';
import type { JsonObject } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';
import { cutForLog } from '../../src/toolkit/secrets.js';

/**
 * Which `anthropic-beta` values of a Messages caller reach the alpha upstream, value by value:
 * those whose prefix the operator lists (`vendor-alpha` config `betas.forward`). By default the
 * values that change no price — features of the request's shape or of the stream — while those
 * that change what the operator pays (`context-1m-`, larger output limits, extended cache
 * lifetimes, server tools billed by use) pass only once listed. A value not forwarded is dropped
 * with a warning, once per value and process, never refused: clients such as Claude Code send
 * several on every request. A value the forwarded body itself needs (its feature is in the body,
 * and the vendor would refuse the body without it) passes whatever the list says: the body is the
 * caller's, and dropping the value would turn a request that works into a refusal.
 */

export const PRICE_NEUTRAL_BETAS: readonly string[] = [
  'claude-code-',
  'interleaved-thinking-',
  'fine-grained-tool-streaming-',
  'token-efficient-tools-',
  'context-management-',
  'structured-outputs-',
  'effort-',
  'redact-thinking-',
];

/** Beta prefixes a body's features need: `defer_loading` on a tool is an advanced-tool-use feature. */
const NEEDED_BY_BODY: ReadonlyArray<{ prefix: string; needs: (body: JsonObject) => boolean }> = [
  {
    prefix: 'advanced-tool-use-',
    needs: (body) => Array.isArray(body['tools']) && body['tools'].some((tool) => isObject(tool) && tool['defer_loading'] === true),
  },
];

/** The beta prefixes the forwarded body needs, whatever the operator's list. */
export const betasNeededBy = (body: JsonObject): string[] => NEEDED_BY_BODY.filter((entry) => entry.needs(body)).map((entry) => entry.prefix);

/** A dropped value as logged: beta names are short (`context-1m-2025-08-07`); a caller's invented one is cut, key-shaped text redacted. */
const BETA_LOGGED_CHARS = 64;

/** Distinct dropped values remembered (so a warning is not repeated); a flood of invented values cannot grow it further. */
const WARNED_LIMIT = 256;

export class BetaFilter {
  private readonly warned = new Set<string>();

  constructor(
    private readonly prefixes: readonly string[],
    private readonly log: Logger,
  ) {}

  /** The values to forward, comma-joined, or undefined for none; `needed`: prefixes the body needs (betasNeededBy), forwarded too. */
  forwarded(header: string | string[] | undefined, needed: readonly string[] = []): string | undefined {
    const values = new Set(
      [header ?? []]
        .flat()
        .flatMap((line) => line.split(','))
        .map((value) => value.trim())
        .filter(Boolean),
    );
    const kept = [...values].filter((value) => {
      if (this.prefixes.some((prefix) => value.startsWith(prefix)) || needed.some((prefix) => value.startsWith(prefix))) return true;
      this.warnOnce(value);
      return false;
    });
    return kept.length ? kept.join(',') : undefined;
  }

  private warnOnce(value: string): void {
    if (this.warned.has(value) || this.warned.size >= WARNED_LIMIT) return;
    this.warned.add(value);
    this.log.warn(
      { beta: cutForLog(value, BETA_LOGGED_CHARS) },
      'anthropic-beta value dropped: not listed in vendor-alpha betas.forward (it may change what the operator pays)',
    );
  }
}
