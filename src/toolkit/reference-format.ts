/**
 * The reference chat format (OpenAI chat completions, legacy completions, embeddings): the chat
 * ingress reads and renders it, and it is also a vendor wire — the gamma family speaks it
 * upstream, and beta answers reference embeddings. Import it to read or write that format's
 * bodies; another ingress or vendor has no business here.
 */

export { parseChatRequest } from '../reference/chat-request.js';
export { chatBodyFromLegacy } from '../reference/legacy.js';
export { checkRequestBody } from '../reference/request-schemas.js';
export { ChatOutput } from '../reference/chat-output.js';
export { referenceUsage } from '../reference/reply.js';
export { embeddingsBody, float32Base64, parseEmbeddingsRequest, type EmbeddingsRequest } from '../reference/embeddings.js';
