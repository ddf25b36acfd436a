import { CHAT_ENDPOINTS } from '../../plugins/ingress-chat/index.js';
import type { Endpoint } from '../../src/chain/call.js';

/** The chat ingress's endpoints by name, for unit tests that build a Call by hand. */
export const ENDPOINTS: Readonly<Record<'chat.completions' | 'completions' | 'embeddings' | 'usage', Endpoint>> = Object.fromEntries(
  CHAT_ENDPOINTS.map((endpoint) => [endpoint.name, endpoint]),
) as Record<'chat.completions' | 'completions' | 'embeddings' | 'usage', Endpoint>;
