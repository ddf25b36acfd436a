import type { GatewayError, JsonObject } from '../../src/plugin-api.js';
import { outputItemId } from './item-ids.js';

/**
 * The text of the Responses stream's events: each one `event: <type>` and a `data:` object with
 * its `type` and a `sequence_number` counting from 0, then its members. Written from JSON text
 * rather than built as objects, since a stream writes one per delta (stream.ts decides which
 * events a reply makes; this module only how each is written).
 */

/** Where an output item stands: its id, its index, and the first members of every event about it. */
export interface ItemPlace {
  id: string;
  index: number;
  /** `"item_id":…,"output_index":…` as JSON text. */
  head: string;
}

/** A new item's id (named after its response: item-ids.ts) and place; the id (a prefix, letters and digits) needs no JSON escaping. */
export function placeOf(prefix: 'msg_' | 'rs_' | 'fc_', responseId: string, index: number): ItemPlace {
  const id = outputItemId(prefix, responseId, index);
  return { id, index, head: `"item_id":"${id}","output_index":${index}` };
}

/** The `error` event of a failure after the 200: the reference API's flat fields and our envelope's `error`, so every client finds its shape. */
export function errorEvent(error: GatewayError, sequence: number): string {
  const { code, message, param, type } = error;
  const payload = { type: 'error', sequence_number: sequence, code, message, param, error: { type, code, message, param } };
  return `event: error\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** One stream's events, numbered in the order they are written. */
export class EventWriter {
  private sequence = 0;

  /**
   * An event from its payload's members as JSON text (`"a":1,"b":2`), after its `type` and
   * `sequence_number`: the same bytes as JSON.stringify({ type, sequence_number, ...payload })
   * without copying the payload into a new object (every event's types are our own constants).
   */
  raw(type: string, members: string): string {
    return `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.sequence++}${members && `,${members}`}}\n\n`;
  }

  event(type: string, payload: JsonObject): string {
    return this.raw(type, JSON.stringify(payload).slice(1, -1));
  }

  /**
   * An event about one item: `item_id` and `output_index`, then the payload's members. Written
   * from text rather than spread into one object (`{ ...at, ...payload }`), which V8 then
   * serialises several times slower.
   */
  item(type: string, place: ItemPlace, payload: JsonObject): string {
    return this.raw(type, `${place.head},${JSON.stringify(payload).slice(1, -1)}`);
  }

  error(error: GatewayError): string {
    return errorEvent(error, this.sequence++);
  }
}
