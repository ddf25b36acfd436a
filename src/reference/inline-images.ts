import { invalidRequest } from '../http/errors.js';
import { IMAGE_LIMITS, ImageFetchError, type GuardedFetcher } from '../net/guarded-fetch.js';
import type { Part, Turn } from './chat-request.js';

type ImagePart = Extract<Part, { type: 'image' }>;

/**
 * For a vendor that takes images only as inline bytes: fetches every remote image of the
 * conversation through the guarded fetcher (in parallel, at most 8 per request) and replaces
 * its URL with the bytes. A refused image is a 400 naming its part, e.g. `messages[0].content[1]`.
 */
export async function inlineRemoteImages(turns: readonly Turn[], fetcher: GuardedFetcher): Promise<void> {
  const remote = turns.flatMap((turn) => turn.parts).filter((part): part is ImagePart => part.type === 'image' && part.source.kind === 'url');
  if (remote.length > IMAGE_LIMITS.perRequest) {
    const extra = remote[IMAGE_LIMITS.perRequest] as ImagePart;
    throw invalidRequest(`${extra.param}: at most ${IMAGE_LIMITS.perRequest} remote images are fetched per request.`, extra.param);
  }
  await Promise.all(
    remote.map(async (part) => {
      if (part.source.kind !== 'url') return;
      try {
        const image = await fetcher.fetch(part.source.url);
        part.source = { kind: 'data', mediaType: image.mediaType, data: image.data.toString('base64') };
      } catch (error) {
        const reason = error instanceof ImageFetchError ? error.message : 'the image could not be fetched';
        throw invalidRequest(`The image at ${part.param} was refused: ${reason}.`, part.param);
      }
    }),
  );
}
