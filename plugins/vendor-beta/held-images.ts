import type { Call } from '../../src/plugin-api.js';
import type { ReleaseImages } from '../../src/toolkit/remote-images.js';

/**
 * The image budget's leases of a call's inlined remote images. They are given back when the
 * call completes, not when its request is translated: the translated vendor request carries
 * the same bytes (as base64) and lives as long as the call (the pipeline keeps it for retries),
 * so releasing earlier would leave slow upstream calls' images outside the bound. A symbol
 * property of the call, not a WeakMap (docs/plugins.md).
 */
const HELD = Symbol('vendor-beta.held-images');
type WithImages = Call & { [HELD]?: ReleaseImages };

/** Releases the images a call holds, if any (at completion, or before a re-translation replaces them). */
export function releaseImages(call: Call): void {
  const release = (call as WithImages)[HELD];
  if (!release) return;
  delete (call as WithImages)[HELD];
  release();
}

export function holdImages(call: Call, release: ReleaseImages): void {
  releaseImages(call);
  (call as WithImages)[HELD] = release;
}
