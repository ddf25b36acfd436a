import { invalidRequest, type JsonObject } from '../../src/plugin-api.js';
import type { StoredResponse } from './store/responses.js';
import { responseOfItem } from './item-ids.js';

/**
 * `item_reference` input items (`{"type":"item_reference","id":"msg_…"}`: the AI SDK's
 * multi-step loops send earlier output this way, assuming it was stored) resolved to the stored
 * output items they name. An item id names its response (item-ids.ts), so each referenced
 * response is read once, by its key. An id the key cannot resolve — unknown, another key's,
 * expired, of a response stored with `store: false` — is the 400 of an unknown
 * `previous_response_id`, naming the item.
 */

export const isReference = (item: unknown): boolean => (item as JsonObject | null)?.['type'] === 'item_reference';

/** The input with each reference replaced by the item it names, and the bytes of the items put in. */
export async function resolveReferences(
  input: readonly JsonObject[],
  /** The key's stored response of this id (within the kept window), or null. */
  find: (responseId: string) => Promise<StoredResponse | null>,
): Promise<{ input: JsonObject[]; bytes: number }> {
  const outputs = new Map<string, JsonObject[] | null>();
  const resolved: JsonObject[] = [];
  let bytes = 0;
  for (const [i, item] of input.entries()) {
    if (!isReference(item)) {
      resolved.push(item);
      continue;
    }
    const id = item['id'] as string;
    const responseId = responseOfItem(id);
    if (responseId !== null && !outputs.has(responseId)) {
      const stored = await find(responseId);
      outputs.set(responseId, stored ? (JSON.parse(stored.items) as { output: JsonObject[] }).output : null);
    }
    const found = responseId === null ? undefined : outputs.get(responseId)?.find((output) => output['id'] === id);
    if (!found) throw invalidRequest(`Item with id '${id}' not found.`, `input[${i}]`, 'item_not_found');
    resolved.push(found);
    bytes += Buffer.byteLength(JSON.stringify(found));
  }
  return { input: resolved, bytes };
}
