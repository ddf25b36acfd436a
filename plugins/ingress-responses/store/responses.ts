/**
 * The ingress-responses plugin's own state (./state.ts): the stored responses that
 * `previous_response_id` continues, and the rows and portable SQL both backends read them with.
 */

/**
 * A stored Responses API response: what continuing from it (`previous_response_id`) needs.
 * Stored per key; another key never sees it.
 */
export interface StoredResponse {
  /** `resp_…`. */
  id: string;
  keyId: string;
  /** The response it continued (its `previous_response_id`), or null. */
  previousId: string | null;
  /** Epoch ms. */
  createdAt: number;
  /** JSON text of `{"input": [items], "output": [items]}`: the caller's input items and the response's output items. */
  items: string;
  /** The upstream deployment that answered it; null or absent when unknown (stored before the store kept it). */
  deployment?: string | null;
}

/** What is saved of a response: what continuing from it needs, and what retrieving it returns. */
export interface SavedResponse extends StoredResponse {
  /**
   * JSON text of the response object as `GET /v1/responses/{id}` returns it, with `"output":[]`:
   * its output is in `items`. Without it (a response saved by an older version, a test's), the
   * response can be continued but not retrieved.
   */
  resource?: string;
}

/** A stored response as `GET /v1/responses/{id}` and its `input_items` read it. */
export interface RetrievedResponse {
  /** As in StoredResponse. */
  items: string;
  /** As in SavedResponse; null for a response stored before the store kept it. */
  resource: string | null;
}

export interface ResponseStore {
  save(response: SavedResponse): Promise<void>;
  /**
   * The key's response `id` and every response it continues, oldest first, all created at or
   * after `since`. Empty when there is none for this key (unknown, another key's, expired) or
   * when a response of its chain is gone: a conversation is continued whole or not at all.
   */
  thread(keyId: string, id: string, since: number): Promise<StoredResponse[]>;
  /**
   * The key's response `id` alone, created at or after `since`, or null (unknown, another key's,
   * expired): what an `item_reference` to one of its output items reads.
   */
  one(keyId: string, id: string, since: number): Promise<StoredResponse | null>;
  /** The key's response `id`, created at or after `since`, as retrieving it reads it; null as for `one`. */
  retrieve(keyId: string, id: string, since: number): Promise<RetrievedResponse | null>;
  /**
   * Deletes the key's response `id` (whatever its age); whether there was one. A response that
   * continued it can no longer be continued (its conversation lost a response: `thread`).
   */
  remove(keyId: string, id: string): Promise<boolean>;
  /**
   * Deletes the responses created before `before` (epoch ms); resolves with how many went. A
   * store may walk them in the order they were stored and stop at the first newer one: a
   * response stored after newer ones (a long stream's) then goes at a later prune.
   */
  prune(before: number): Promise<number>;
  /**
   * Keeps the key's newest responses (by createdAt, then id) whose items add up to at most
   * `budget` bytes of UTF-8 and deletes the older ones; resolves with how many went.
   */
  trim(keyId: string, budget: number): Promise<number>;
}

export interface ResponseRow {
  id: string;
  key_id: string;
  previous_id: string | null;
  created_at: number;
  items: string;
  deployment: string | null;
}

export const toStoredResponse = (row: ResponseRow): StoredResponse => ({
  id: row.id,
  keyId: row.key_id,
  previousId: row.previous_id,
  createdAt: row.created_at,
  items: row.items,
  deployment: row.deployment,
});

/**
 * A stored response and its ancestors in one recursive query (portable SQL), newest first:
 * each link must be the same key's and not expired. The placeholders are the backend's, for
 * the response id, the key id and the oldest time kept.
 */
export const responseThreadSql = (id: string, key: string, since: string): string => `
  WITH RECURSIVE thread (id, key_id, previous_id, created_at, items, deployment, depth) AS (
    SELECT id, key_id, previous_id, created_at, items, deployment, 0 FROM responses WHERE id = ${id} AND key_id = ${key} AND created_at >= ${since}
    UNION ALL
    SELECT r.id, r.key_id, r.previous_id, r.created_at, r.items, r.deployment, t.depth + 1
      FROM responses r JOIN thread t ON r.id = t.previous_id
      WHERE r.key_id = t.key_id AND r.created_at >= ${since}
  )
  SELECT id, key_id, previous_id, created_at, items, deployment FROM thread ORDER BY depth DESC`;

/** One stored response of a key, created at or after the oldest time kept (placeholders: id, key id, that time). */
export const responseSql = (id: string, key: string, since: string): string =>
  `SELECT id, key_id, previous_id, created_at, items, deployment FROM responses WHERE id = ${id} AND key_id = ${key} AND created_at >= ${since}`;

/** The response object and items of one stored response of a key (placeholders as for responseSql). */
export const retrieveSql = (id: string, key: string, since: string): string =>
  `SELECT items, resource FROM responses WHERE id = ${id} AND key_id = ${key} AND created_at >= ${since}`;

/** The rows of a thread query, oldest first, or none when its oldest response still names one before it (a link is gone). */
export function wholeThread(rows: readonly ResponseRow[]): StoredResponse[] {
  return rows.length && rows[0]?.previous_id === null ? rows.map(toStoredResponse) : [];
}
