import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Call, Clock } from '../../src/plugin-api.js';
import { replaysOnDeployment } from '../../src/toolkit/vendor.js';
import type { KeptSignature, SignatureStore, ThoughtSignature } from './store/signatures.js';

/**
 * Beta's `thoughtSignature`s have no slot in the reference format, but the vendor rejects a
 * replayed function call of its own without one. The gateway keeps them in the store for a day,
 * keyed by the calling key and the tool-call id it handed the caller, so a follow-up call that
 * reaches another instance, or comes after a restart, replays the right one. History the
 * gateway did not see, or has forgotten, is sent with the vendor's documented placeholder.
 * A streamed turn without calls whose signature came after its text is kept likewise, by the
 * digest of that text (`textTurnId`). Each is kept with the deployment that issued it and
 * replayed only there, as sealed reasoning state is (docs/deployments.md#betas-kept-thought-signatures).
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
/** The signatures read for a call's history, with the ids asked: read once, before the deployment is chosen, for every attempt. */
const READ = Symbol('vendor-beta.signatures-read');
interface Read {
  ids: ReadonlySet<string>;
  kept: ReadonlyMap<string, KeptSignature>;
}
type WithSignatures = Call & { [WRITES]?: Array<Promise<void>>; [READ]?: Read };

const keyOf = (call: Call): string => call.key?.id ?? '';

export class ThoughtSignatures {
  private queue: ThoughtSignature[] = [];
  private flush: Promise<void> | null = null;

  constructor(
    private readonly store: SignatureStore,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /**
   * The signatures kept for a request's history (its tool calls', its text turns'): one read per
   * call (a retry's attempt reuses it), none for a request without model turns.
   */
  async known(call: Call, ids: readonly string[]): Promise<ReadonlyMap<string, KeptSignature>> {
    if (ids.length === 0) return new Map();
    const read = (call as WithSignatures)[READ];
    if (read && ids.every((id) => read.ids.has(id))) return read.kept;
    const kept = await this.store.get(keyOf(call), ids, this.clock.now());
    (call as WithSignatures)[READ] = { ids: new Set(ids), kept };
    return kept;
  }

  /**
   * Pins `call` to the deployment that issued the latest of its history's kept signatures (`ids`
   * in the history's order), before the exchange chooses one: a call already pinned (by sealed
   * state, a stored conversation) stays so, and a signature kept before deployments were recorded
   * pins nothing.
   */
  async pin(call: Call, ids: readonly string[]): Promise<void> {
    if (call.pinnedDeployment !== null) return;
    const kept = await this.known(call, ids);
    for (let i = ids.length - 1; i >= 0; i--) {
      const deployment = kept.get(ids[i] as string)?.deployment;
      if (deployment) {
        call.pinnedDeployment = deployment;
        return;
      }
    }
  }

  /**
   * Keeps a signature the vendor gave for one of `call`'s tool calls. Written off the reply's
   * path — those of one event-loop turn in one batch, started at once — and awaited by
   * `settled(call)` before the reply's last byte, so a follow-up can find it anywhere.
   */
  remember(call: Call, callId: string, signature: string): void {
    this.queue.push({ keyId: keyOf(call), callId, signature, deployment: call.deployment });
    this.flush ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.write());
    const writes = ((call as WithSignatures)[WRITES] ??= []);
    writes.push(this.flush);
  }

  /** Resolves once every signature `call` gave is written (or failed, which is logged: the follow-up then sends the placeholder). */
  async settled(call: Call): Promise<void> {
    const writes = (call as WithSignatures)[WRITES];
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

/**
 * The kept signatures the attempt's deployment may be sent (`call.deployment`): one another
 * deployment issued would fail the vendor's check there, so it is left out (the turn's first call
 * then gets the placeholder) and announced as sealed state is, `reasoning_state=dropped:deployment`.
 */
export function signaturesOnDeployment(call: Call, kept: ReadonlyMap<string, KeptSignature>): ReadonlyMap<string, string> {
  const sendable = new Map<string, string>();
  for (const [id, { signature, deployment }] of kept) {
    const state = { family: 'beta', kind: 'signature', data: signature, ...(deployment === null ? {} : { deployment }) };
    if (replaysOnDeployment(call, state)) sendable.set(id, signature);
  }
  return sendable;
}
