import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Call, Clock } from '../../src/plugin-api.js';
import type { SignatureStore, ThoughtSignature } from './store/signatures.js';

/**
 * Beta's `thoughtSignature`s have no slot in the reference format, but the vendor rejects a
 * replayed function call of its own without one. The gateway keeps them in the store for a day,
 * keyed by the calling key and the tool-call id it handed the caller, so a follow-up call that
 * reaches another instance, or comes after a restart, replays the right one. History the
 * gateway did not see, or has forgotten, is sent with the vendor's documented placeholder.
 * A streamed turn without calls whose signature came after its text is kept likewise, by the
 * digest of that text (`textTurnId`).
 */

/**
 * The id a signature that came after a turn's text is kept under (docs/vendor-formats.md#beta-stream-signature-after-the-text):
 * the digest of the turn's text, which the caller hands back with the turn.
 */
export const textTurnId = (text: string): string => `text:${createHash('sha256').update(text).digest('base64url')}`;

/** The placeholder the vendor accepts for function calls it did not produce in this session. */
export const UNKNOWN_SIGNATURE = 'skip_thought_signature_validator';

/** How long a signature is kept for a follow-up call. */
export const SIGNATURE_TTL_MS = 24 * 3_600_000;

/** The writes of a call's signatures, awaited before its last byte. */
const WRITES = Symbol('vendor-beta.signature-writes');
type WithWrites = Call & { [WRITES]?: Array<Promise<void>> };

const keyOf = (call: Call): string => call.key?.id ?? '';

export class ThoughtSignatures {
  private queue: ThoughtSignature[] = [];
  private flush: Promise<void> | null = null;

  constructor(
    private readonly store: SignatureStore,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** The signatures kept for a request's history (its tool calls', its text turns'): one read, none for a request without model turns. */
  async known(call: Call, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
    return ids.length === 0 ? new Map() : this.store.get(keyOf(call), ids, this.clock.now());
  }

  /**
   * Keeps a signature the vendor gave for one of `call`'s tool calls. Written off the reply's
   * path — those of one event-loop turn in one batch, started at once — and awaited by
   * `settled(call)` before the reply's last byte, so a follow-up can find it anywhere.
   */
  remember(call: Call, callId: string, signature: string): void {
    this.queue.push({ keyId: keyOf(call), callId, signature });
    this.flush ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.write());
    const writes = ((call as WithWrites)[WRITES] ??= []);
    writes.push(this.flush);
  }

  /** Resolves once every signature `call` gave is written (or failed, which is logged: the follow-up then sends the placeholder). */
  async settled(call: Call): Promise<void> {
    const writes = (call as WithWrites)[WRITES];
    if (writes) await Promise.all(writes);
  }

  /** Drops expired signatures; a failure is logged. */
  async prune(): Promise<void> {
    await this.store.prune(this.clock.now()).catch((error: unknown) => this.log.warn({ err: error }, 'thought signature prune failed'));
  }

  private async write(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.flush = null;
    try {
      await this.store.put(batch, this.clock.now() + SIGNATURE_TTL_MS);
    } catch (error) {
      this.log.warn({ err: error, signatures: batch.length }, 'thought signatures not kept; follow-up calls will send the placeholder');
    }
  }
}
