import { decodeReasoningState, isObject, type JsonObject } from '../../src/plugin-api.js';

/**
 * Thinking blocks a Messages caller hands back whose signature is the gateway's envelope
 * (`gw1.…`: a state another family issued, or alpha's own carried through another format), in a
 * body otherwise passed through to alpha (docs/reasoning.md#what-goes-back): alpha's own come out
 * of their envelope unchanged, another family's are left out — alpha could not verify them, and
 * a family never receives another's state.
 */

/** A block as alpha takes it: itself, alpha's state out of its envelope, or null for another family's. */
function forAlpha(block: unknown): unknown {
  if (!isObject(block) || block['type'] !== 'thinking' || typeof block['signature'] !== 'string') return block;
  const state = decodeReasoningState(block['signature']);
  if (!state) return block;
  if (state.family !== 'alpha') return null;
  return state.kind === 'redacted' ? { type: 'redacted_thinking', data: state.data } : { ...block, signature: state.data };
}

const carriesEnvelope = (message: unknown): boolean =>
  isObject(message) && Array.isArray(message['content']) && message['content'].some((block) => forAlpha(block) !== block);

/** The messages with every enveloped thinking block as alpha takes it, or null when none has one (the body then goes byte for byte). */
export function messagesForAlpha(messages: unknown): unknown[] | null {
  if (!Array.isArray(messages) || !messages.some(carriesEnvelope)) return null;
  return messages.map((message: unknown) => {
    if (!carriesEnvelope(message)) return message;
    const content = ((message as JsonObject)['content'] as unknown[]).map(forAlpha).filter((block) => block !== null);
    return { ...(message as JsonObject), content };
  });
}
