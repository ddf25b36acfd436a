/** Parsed JSON, read without `any`: an object's members as unknowns. */
export type Json = Record<string, unknown>;

/** The value at a path of keys and indexes inside parsed JSON, or undefined where the path leaves it. */
export function dig(value: unknown, ...path: Array<string | number>): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

/** The object at a path (an empty one where there is none). */
export const digObject = (value: unknown, ...path: Array<string | number>): Json => {
  const found = dig(value, ...path);
  return found !== null && typeof found === 'object' && !Array.isArray(found) ? (found as Json) : {};
};
