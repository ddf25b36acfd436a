import type { JsonObject } from '../../src/plugin-api.js';

/**
 * A stored response's input items as `GET /v1/responses/{id}/input_items` lists them: each with an
 * `id`, a `type` and a `status`, as the specification's items have. Callers often send items
 * without ids (Codex CLI sends none), so an item without one gets an id made of its response's
 * and its place (`msg_<response>_in<index>`), the same at every listing, so that `after` and
 * `before` page through them. The `_in` keeps them apart from output item ids (item-ids.ts),
 * which an `item_reference` names. A message's string content is listed as its one text part.
 */

const PREFIXES: Readonly<Record<string, string>> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  reasoning: 'rs',
  compaction: 'cmp',
};

/** A message's content as parts: a string is one text part (`output_text` for an assistant, `input_text` otherwise). */
function contentParts(role: unknown, content: unknown): unknown {
  if (typeof content !== 'string') return content;
  return [role === 'assistant' ? { type: 'output_text', text: content, annotations: [] } : { type: 'input_text', text: content }];
}

export function listedInputItems(responseId: string, input: readonly JsonObject[]): JsonObject[] {
  const stem = responseId.slice('resp_'.length);
  return input.map((item, index) => {
    const type = typeof item['type'] === 'string' ? item['type'] : 'message';
    const id = typeof item['id'] === 'string' ? item['id'] : `${PREFIXES[type] ?? 'item'}_${stem}_in${index.toString(36)}`;
    const listed: JsonObject = { ...item, id, type, status: item['status'] ?? 'completed' };
    if (type === 'message') listed['content'] = contentParts(item['role'], item['content']);
    return listed;
  });
}
