import type { JsonObject } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';
import { decodeReasoningState } from '../../src/toolkit/neutral.js';

/**
 * Thinking blocks a Messages caller hands back whose signature is the gateway's envelope
 * (`gw1.…`: a state another family issued, or alpha's own carried through another format), in a
 * body otherwise passed through to alpha (docs/reasoning.md#what-goes-back): alpha's own come out
 * of their envelope unchanged, another family's are left out — alpha could not verify them, and
 * a family never receives another's state.
 */

/** A block as alpha takes it: itself, alpha's state out of its envelope, or null for another family's. */
export function blockForAlpha(block: unknown): unknown {
  if (!isObject(block) || block['type'] !== 'thinking' || typeof block['signature'] !== 'string') return block;
  const state = decodeReasoningState(block['signature']);
  if (!state) return block;
  if (state.family !== 'alpha') return null;
  return state.kind === 'redacted' ? { type: 'redacted_thinking', data: state.data } : { ...block, signature: state.data };
}

const carriesEnvelope = (message: unknown): boolean =>
  isObject(message) && Array.isArray(message['content']) && message['content'].some((block) => blockForAlpha(block) !== block);

/**
 * The messages with every enveloped thinking block as alpha takes it, or null when none has one
 * (the body then goes byte for byte). A message left with no block (it held only another family's
 * thinking: a turn cut short while it thought) is null in its place: see joinedMessages.
 */
export function messagesForAlpha(messages: unknown): unknown[] | null {
  if (!Array.isArray(messages) || !messages.some(carriesEnvelope)) return null;
  return messages.map((message: unknown) => {
    if (!carriesEnvelope(message)) return message;
    const content = ((message as JsonObject)['content'] as unknown[]).map(blockForAlpha).filter((block) => block !== null);
    return content.length ? { ...(message as JsonObject), content } : null;
  });
}

const blocksOf = (content: unknown): unknown[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []);

/**
 * The messages without those left out (null), and the two messages around each one left out
 * joined when they are of one role: alpha refuses an empty message, and wants the roles to
 * alternate. Their content is joined as blocks (a string content becomes a text block).
 */
export function joinedMessages(messages: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  let leftOut = false;
  for (const message of messages) {
    if (message === null) {
      leftOut = true;
      continue;
    }
    const last = out.at(-1);
    if (leftOut && isObject(last) && isObject(message) && last['role'] === message['role']) {
      out[out.length - 1] = { ...last, content: [...blocksOf(last['content']), ...blocksOf(message['content'])] };
    } else {
      out.push(message);
    }
    leftOut = false;
  }
  return out;
}
