import type { ReasoningState } from './request.js';

/**
 * A vendor's opaque reasoning state as one string a caller's format can carry and hand back
 * unchanged (Responses' `encrypted_content`, a Messages thinking block's `signature`, the chat
 * format's `thinking_blocks`): `gw1.` + base64url of the state. Nothing secret is in it (the
 * vendors sign their own states); the envelope only keeps the family it belongs to, so a state
 * is never sent to another vendor.
 */

const PREFIX = 'gw1.';

export function encodeReasoningState(state: ReasoningState): string {
  return PREFIX + Buffer.from(JSON.stringify([state.family, state.kind, state.data])).toString('base64url');
}

/** The state an envelope holds, or null for any other text (not ours, or damaged). */
export function decodeReasoningState(text: string): ReasoningState | null {
  if (!text.startsWith(PREFIX)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(text.slice(PREFIX.length), 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 3 || !value.every((item) => typeof item === 'string')) return null;
    const [family, kind, data] = value as [string, string, string];
    return { family, kind, data };
  } catch {
    return null;
  }
}
