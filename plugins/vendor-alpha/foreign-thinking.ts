import type { JsonObject, ResolvedCall } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';
import { stateOpener, verifiedState, type OpenState } from '../../src/toolkit/neutral.js';
import { replaysOnDeployment } from '../../src/toolkit/vendor.js';

/**
 * Thinking blocks a Messages caller hands back whose `signature` (or a redacted block's `data`)
 * is the gateway's seal, in a body otherwise passed through to alpha
 * (docs/reasoning.md#what-goes-back): alpha's own come out of their seal, unchanged, when the
 * attempt goes to the deployment that issued them; another family's, another deployment's, and
 * one whose seal does not open (announced) are left out — alpha could not verify them. A
 * signature that is not the gateway's is alpha's own, as the caller brought it.
 */
export class ThinkingForAlpha {
  private readonly open: OpenState;
  /** Each block's answer, so that each seal is opened (and announced) once a request. */
  private readonly taken = new Map<unknown, unknown>();

  constructor(private readonly call: ResolvedCall) {
    this.open = stateOpener(call);
  }

  /** A block as alpha takes it: itself, alpha's state out of its seal, or null for one left out. */
  block(block: unknown): unknown {
    if (!isObject(block)) return block;
    const member = block['type'] === 'thinking' ? 'signature' : block['type'] === 'redacted_thinking' ? 'data' : null;
    const sealed = member === null ? undefined : block[member as string];
    if (typeof sealed !== 'string') return block;
    const known = this.taken.get(block);
    if (known !== undefined) return known;
    const taken = this.opened(block, sealed, member as string);
    this.taken.set(block, taken);
    return taken;
  }

  private opened(block: JsonObject, sealed: string, member: string): unknown {
    const opened = this.open(sealed, member);
    if (opened === null) return block;
    const state = verifiedState(opened);
    if (state?.family !== 'alpha' || !replaysOnDeployment(this.call, state)) return null;
    return state.kind === 'redacted' ? { type: 'redacted_thinking', data: state.data } : { ...block, signature: state.data };
  }

  /**
   * The messages with every sealed thinking block as alpha takes it, or null when none has one
   * (the body then goes byte for byte). A message left with no block (it held only another
   * family's thinking: a turn cut short while it thought) is null in its place: see joinedMessages.
   */
  messages(messages: unknown): unknown[] | null {
    const carriesSeal = (message: unknown): boolean =>
      isObject(message) && Array.isArray(message['content']) && message['content'].some((block) => this.block(block) !== block);
    if (!Array.isArray(messages) || !messages.some(carriesSeal)) return null;
    return messages.map((message: unknown) => {
      if (!carriesSeal(message)) return message;
      const content = ((message as JsonObject)['content'] as unknown[]).map((block) => this.block(block)).filter((block) => block !== null);
      return content.length ? { ...(message as JsonObject), content } : null;
    });
  }
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
