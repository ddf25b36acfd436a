import { planReply, type SimRequest, type SimRoute } from '../../src/toolkit/simulator.js';

type Json = Record<string, unknown>;

/**
 * The alpha simulator's `POST /v1/messages/count_tokens`: `{"input_tokens": N}`, N being the
 * input tokens the simulator reports for the same request in a reply (src/simulators/reply-plan.ts),
 * so a count agrees with `message_start`. `read` is the simulator's own reading of a Messages body.
 */
export const alphaCountRoute = (read: (body: Json) => SimRequest): SimRoute => ({
  method: 'POST',
  pattern: /^\/v1\/messages\/count_tokens$/,
  async handle(ctx) {
    if (!ctx.req.headers['anthropic-version']) {
      ctx.sim.sendError(ctx.res, 400, 'anthropic-version: header is required', 'invalid_request_error');
      return;
    }
    if (await ctx.sim.applyFault(ctx.res, ctx.queued)) return;
    const body = (ctx.body ?? {}) as Json;
    if (!Array.isArray(body['messages']) || body['messages'].length === 0) {
      ctx.sim.sendError(ctx.res, 400, 'messages: at least one message is required', 'invalid_request_error');
      return;
    }
    await ctx.sim.sendJson(ctx.res, { input_tokens: planReply(read(body)).promptTokens });
  },
});
