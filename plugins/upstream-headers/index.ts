import { definePlugin } from '../../src/chain/plugin.js';
import { FAMILIES, type Family } from '../../src/config/schema.js';

/**
 * `upstream-headers`: adds fixed headers to every upstream request, optionally only for some
 * families — e.g. an organisation or project header of the gateway's own vendor account.
 * Also the README's example of a minimal plugin.
 */
interface UpstreamHeadersConfig {
  headers: Record<string, string>;
  families: Family[];
}

export default definePlugin<UpstreamHeadersConfig>({
  name: 'upstream-headers',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['headers'],
    properties: {
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      families: { type: 'array', items: { enum: [...FAMILIES] }, default: [...FAMILIES] },
    },
  },
  setup(_context, config) {
    return {
      onUpstreamRequest(call, request) {
        if (call.family && config.families.includes(call.family)) Object.assign(request.headers, config.headers);
      },
    };
  },
});
