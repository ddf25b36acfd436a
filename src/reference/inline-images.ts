import { GatewayError, invalidRequest } from '../http/errors.js';
import { BudgetExhausted, type Lease } from '../net/byte-budget.js';
import { IMAGE_LIMITS, ImageFetchError, type GuardedFetcher } from '../net/guarded-fetch.js';
import type { Part, Turn } from '../neutral/request.js';

type ImagePart = Extract<Part, { type: 'image' }>;

/** Gives the inlined images' bytes back to the gateway's image budget. */
export type ReleaseImages = () => void;

function refusal(error: unknown, part: ImagePart): GatewayError {
  if (error instanceof BudgetExhausted) {
    return new GatewayError(
      503,
      `The gateway holds as many remote image bytes as it may, so the image at ${part.param} was not fetched (${error.message}). Try again shortly.`,
      {
        headers: { 'retry-after': '1' },
      },
    );
  }
  const reason = error instanceof ImageFetchError ? error.message : 'the image could not be fetched';
  return invalidRequest(`The image at ${part.param} was refused: ${reason}.`, part.param);
}

/**
 * For a vendor that takes images only as inline bytes: fetches every remote image of the
 * conversation through the guarded fetcher (in parallel, at most 8 per request) and replaces
 * its URL with the bytes. A refused image is a 400 naming its part, e.g. `messages[0].content[1]`;
 * an image the gateway's image budget has no room for is a 503. The first failure abandons the
 * other fetches and gives back what they held; on success the caller releases the bytes when
 * it no longer holds them.
 */
export async function inlineRemoteImages(turns: readonly Turn[], fetcher: GuardedFetcher): Promise<ReleaseImages> {
  const remote = turns.flatMap((turn) => turn.parts).filter((part): part is ImagePart => part.type === 'image' && part.source.kind === 'url');
  if (remote.length > IMAGE_LIMITS.perRequest) {
    const extra = remote[IMAGE_LIMITS.perRequest] as ImagePart;
    throw invalidRequest(`${extra.param}: at most ${IMAGE_LIMITS.perRequest} remote images are fetched per request.`, extra.param);
  }
  const leases: Lease[] = [];
  const release: ReleaseImages = () => leases.forEach((lease) => lease.release());
  const abandon = new AbortController();
  let failure: GatewayError | undefined;
  await Promise.allSettled(
    remote.map(async (part) => {
      if (part.source.kind !== 'url') return;
      try {
        const image = await fetcher.fetch(part.source.url, abandon.signal);
        leases.push(image.lease);
        part.source = { kind: 'data', mediaType: image.mediaType, data: image.data.toString('base64') };
      } catch (error) {
        // The first failure is the caller's answer; the others are the fetches it abandoned.
        failure ??= refusal(error, part);
        abandon.abort();
      }
    }),
  );
  if (failure) {
    release();
    throw failure;
  }
  return release;
}
