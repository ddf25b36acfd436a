/**
 * Output item ids (`msg_…`, `rs_…`, `fc_…`) name the response they belong to: the prefix, the
 * response id without its `resp_` (12 hex digits of time and 24 letters and digits), then the
 * item's index in the output in base 36. So an `item_reference` finds its stored item with one
 * lookup of that response by its key (index.ts), and storing a response writes no index of its
 * items (each response stored would otherwise pay a row per item).
 */

const RESPONSE_PREFIX = 'resp_';

/** The id of the output item at `index` of the response `responseId`. */
export const outputItemId = (prefix: 'msg_' | 'rs_' | 'fc_', responseId: string, index: number): string =>
  prefix + responseId.slice(RESPONSE_PREFIX.length) + index.toString(36);

const ITEM_ID = /^(?:msg|rs|fc)_([0-9a-f]{12}[A-Za-z0-9]{24})[0-9a-z]+$/;

/** The response an output item id names, or null for an id the gateway did not mint. */
export function responseOfItem(itemId: string): string | null {
  const match = ITEM_ID.exec(itemId);
  return match ? RESPONSE_PREFIX + (match[1] as string) : null;
}
