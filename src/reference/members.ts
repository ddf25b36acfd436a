import type { JsonObject } from '../chain/call.js';
import { isObject } from './sequence.js';

/**
 * The members one kind of nested object may carry in a request that is translated (written anew
 * for the vendor from what the gateway reads): those the reader maps and those accepted with no
 * effect (echoes of an earlier reply, cache hints). A member outside its kind's set would be
 * dropped unseen by the translation, so the ingresses refuse it by name instead. Null asks
 * nothing, as for top-level parameters.
 */
export type Members = ReadonlySet<string>;

/** Kinds told apart by their `type` member (items, parts, blocks); an object of a type not listed is left to the caller. */
export type MembersByType = Readonly<Record<string, Members>>;

export const members = (...names: string[]): Members => new Set(names);

/** The first member of `value` (not null) outside `known`, as a dotted path under `where` (`tools[0].defer_loading`), or undefined. */
export function memberOutside(value: unknown, known: Members, where: string): string | undefined {
  if (!isObject(value)) return undefined;
  const extra = Object.keys(value).find((key) => value[key] !== null && !known.has(key));
  return extra === undefined ? undefined : `${where}.${extra}`;
}

/** The same for an object whose kind its `type` gives (`fallback`: its kind without one); a type not listed is left to the caller. */
export function typedMemberOutside(value: unknown, byType: MembersByType, where: string, fallback?: string): string | undefined {
  if (!isObject(value)) return undefined;
  const type = value['type'] ?? fallback;
  const known = typeof type === 'string' && Object.hasOwn(byType, type) ? byType[type] : undefined;
  return known && memberOutside(value, known, where);
}

/** The first unknown member among the objects of an array (each named `where[i]`), by `check`. */
export function firstInArray(value: unknown, where: string, check: (entry: JsonObject, at: string) => string | undefined): string | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const [i, entry] of value.entries()) {
    if (!isObject(entry)) continue;
    const found = check(entry, `${where}[${i}]`);
    if (found !== undefined) return found;
  }
  return undefined;
}
