/**
 * The reference chat format's shared pieces (OpenAI chat completions and embeddings): its usage
 * object, the embeddings request and reply that vendors answering reference embeddings read and
 * write (beta, gamma), and the refusal of a field the gateway does not read. Reading and rendering
 * chat itself is the chat ingress's (plugins/ingress-chat); gamma speaks the format upstream and
 * renders usage with it. Another ingress or vendor has no business here.
 */

export { referenceUsage } from '../reference/usage.js';
export { embeddingsBody, float32Base64, parseEmbeddingsRequest, type EmbeddingsRequest } from '../reference/embeddings.js';
export { refuseUnknownFields, unknownParameter } from '../reference/unknown-fields.js';
