import { planReply, type SimRequest, type SimRoute } from '../../src/toolkit/simulator.js';

type Json = Record<string, unknown>;

/**
 * The beta simulator's `POST /v1beta/models/{model}:countTokens`, with `{generateContentRequest}`
 * or bare `{contents}`: `{"totalTokens": N}`, N being the prompt tokens the simulator reports for
 * the same request in a reply (src/simulators/reply-plan.ts). `read` is the simulator's own
 * reading of a GenerateContentRequest.
 */
export const betaCountRoute = (read: (body: Json) => SimRequest): SimRoute => ({
  method: 'POST',
  pattern: /^\/v1beta\/models\/([^/:]+):countTokens$/,
  async handle(ctx) {
    if (await ctx.sim.applyFault(ctx.res, ctx.queued)) return;
    const body = (ctx.body ?? {}) as Json;
    const request = (body['generateContentRequest'] ?? body) as Json;
    if (!Array.isArray(request['contents']) || request['contents'].length === 0) {
      ctx.sim.sendError(ctx.res, 400, '* CountTokensRequest.contents: contents is not specified', 'INVALID_ARGUMENT');
      return;
    }
    await ctx.sim.sendJson(ctx.res, { totalTokens: planReply(read(request)).promptTokens });
  },
});
