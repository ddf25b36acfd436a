import { definePlugin, PluginConfigError } from '../../src/plugin-api.js';

/**
 * `upstream-headers`: adds fixed headers to every upstream request, optionally only for some
 * families — e.g. an organisation or project header of the gateway's own vendor account.
 * Also docs/plugins.md's example of a minimal plugin.
 */
interface UpstreamHeadersConfig {
  headers: Record<string, string>;
  /** Families whose upstream requests get the headers; null: every family. */
  families: string[] | null;
}

export default definePlugin<UpstreamHeadersConfig>({
  name: 'upstream-headers',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['headers'],
    properties: {
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      families: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }], default: null },
    },
  },
  setup({ families }, config) {
    const unknown = config.families?.find((family) => !families.includes(family));
    if (unknown) throw new PluginConfigError(`/families names "${unknown}", which no enabled vendor plugin serves`);
    const only = config.families === null ? null : new Set(config.families);
    return {
      onUpstreamRequest(call, request) {
        if (call.family && (only === null || only.has(call.family))) Object.assign(request.headers, config.headers);
      },
    };
  },
});
