import type { Store } from '../../src/plugin-api.js';
import { Seal } from '../../src/toolkit/secrets.js';

/**
 * The seal of a compaction item's `encrypted_content` (docs/formats/responses.md#compaction): the
 * summary a model wrote, sealed by the gateway (`Seal`: AES-256-GCM under a secret of the store's
 * settings) for the caller's key. The caller can neither read the summary out of it nor alter it,
 * and another key cannot expand it: whatever fails to open is refused (a 400), never sent.
 */

const SECRET_SETTING = 'ingress-responses.compaction_secret';

export class CompactionSeal {
  private constructor(private readonly sealer: Seal) {}

  /** The seal of this store's secret, minted by the first instance that asks. */
  static async load(store: Store): Promise<CompactionSeal> {
    // `gwc1.`: the gateway's envelope, versioned as its reasoning states are (`gw2.`).
    return new CompactionSeal(await Seal.load(store.settings, SECRET_SETTING, 'gateway compaction v1', 'gwc1.'));
  }

  /** `summary` sealed for the key `keyId`. */
  seal(keyId: string, summary: string): string {
    return this.sealer.seal(keyId, summary);
  }

  /** The summary sealed for `keyId`, or null: not the gateway's envelope, altered, sealed under another secret or for another key. */
  open(keyId: string, content: string): string | null {
    return this.sealer.open(keyId, content);
  }
}
