/**
 * Remote images fetched for a vendor whose wire takes image bytes, not URLs: the guarded fetcher
 * (https only, no private addresses, size and time limits), the byte budget a call's images share,
 * and the inliner that turns the neutral request's image URLs into data. Used today by the beta
 * vendor; it stays in the core because it is the gateway's outbound-fetch guard, held by its
 * security tests, not a vendor's wire knowledge.
 */

export { inlineRemoteImages, type ReleaseImages } from '../reference/inline-images.js';
export { GuardedFetcher, IMAGE_LIMITS } from '../net/guarded-fetch.js';
export { ByteBudget } from '../net/byte-budget.js';
export { policyAllowing } from '../net/address-policy.js';
