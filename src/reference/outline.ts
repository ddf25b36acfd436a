import type { JsonObject } from '../chain/call.js';

/** What the ingress formats' outlines (src/chain/ingress.ts, `CallOutline`) read alike. */

/** A positive whole number, else undefined. */
export const positiveInt = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined);

/** The first content part of `type` in a list of messages or items, as `<field>[i].content[j]`; null when there is none. */
export function firstPart(messages: unknown, field: string, type: string): string | null {
  if (!Array.isArray(messages)) return null;
  for (const [i, message] of messages.entries()) {
    const content = (message as JsonObject | null)?.['content'];
    if (!Array.isArray(content)) continue;
    const j = content.findIndex((part) => (part as JsonObject | null)?.['type'] === type);
    if (j >= 0) return `${field}[${i}].content[${j}]`;
  }
  return null;
}
