import { invalidRequest, type JsonObject } from '../../src/plugin-api.js';

/**
 * Compaction items (`{"type":"compaction","encrypted_content"}`, made by POST /v1/responses/compact)
 * coming back in a request's input, or in the stored conversation it continues: each is opened
 * (compaction-seal.ts) before the request is read, and read as a user message holding the summary
 * (read.ts), on every family. A user message rather than system text: it stands where the
 * compacted conversation stood, before what followed it, and every family takes user text in any
 * turn. What is stored for a response is the item as it came, still sealed, so that listing a
 * response's input items never shows the summary.
 */

export const isCompaction = (item: unknown): boolean => (item as JsonObject | null)?.['type'] === 'compaction';

/** The text a compaction item is read as: the summary, said to be one. */
export const expandedSummary = (summary: string): string => `Summary of the earlier conversation, which was compacted:\n\n${summary}`;

/**
 * The summaries of the compaction items among `items`, by their sealed content; `open` gives the
 * summary of one, or null when it does not open. One that does not open is a 400 naming it
 * (`where(i)`): it is another service's, another key's, or was altered, and nothing in it can be
 * sent in the caller's name.
 */
export function openCompactions(
  items: readonly JsonObject[],
  where: (index: number) => string,
  open: (sealed: string) => string | null,
  /** Where the summaries go: made on first use (most calls have no compaction item). */
  into: () => Map<string, string>,
): void {
  items.forEach((item, i) => {
    if (!isCompaction(item)) return;
    const sealed = item['encrypted_content'] as string;
    const summaries = into();
    if (summaries.has(sealed)) return;
    const summary = open(sealed);
    if (summary === null) {
      const param = where(i);
      throw invalidRequest(`${param}: the compaction item was not made by this gateway for this key, or it was altered; it cannot be read.`, param);
    }
    summaries.set(sealed, summary);
  });
}
