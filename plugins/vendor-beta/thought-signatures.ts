/**
 * Beta's `thoughtSignature`s have no slot in the reference format, but the vendor rejects a
 * replayed function call of its own without one. The gateway keeps them, keyed by the tool-call
 * id it handed the caller, in a bounded memory (oldest forgotten first); history the gateway
 * did not see, or has forgotten, is sent with the vendor's documented placeholder instead.
 */

/** The placeholder the vendor accepts for function calls it did not produce in this session. */
export const UNKNOWN_SIGNATURE = 'skip_thought_signature_validator';

export class ThoughtSignatures {
  private readonly byCallId = new Map<string, string>();

  constructor(private readonly limit = 10_000) {}

  remember(callId: string, signature: string): void {
    this.byCallId.delete(callId);
    this.byCallId.set(callId, signature);
    if (this.byCallId.size > this.limit) this.byCallId.delete(this.byCallId.keys().next().value as string);
  }

  get(callId: string): string | undefined {
    return this.byCallId.get(callId);
  }
}
