import { randomBytes } from 'node:crypto';
import {
  embedText,
  faultFromDirectives,
  planReply,
  readDirectives,
  SimServer,
  type ReplyPlan,
  type SimChoice,
  type SimContext,
  type SimOptions,
  type SimVendor,
  type VendorErrorBody,
} from '../../src/toolkit/simulator.js';
import { InvalidArgument, SimSignatures, thinkingOf, type Thinking } from './simulator-thinking.js';
import { betaCountRoute } from './simulator-count.js';
import { partsOf, readGenerateRequest, textOf, validateGenerateRequest } from './simulator-request.js';

/**
 * Simulator of the beta family's upstream, a Gemini-style API (docs/vendor-formats.md#beta):
 * `/v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse` (whole chunks, no
 * `[DONE]`; a JSON array without `alt=sse`), `:batchEmbedContents`, `:embedContent`, the
 * `x-goog-api-key` header (or `?key=`), function calls arriving whole with a `thoughtSignature`
 * on the first, thinking (simulator-thinking.ts), `usageMetadata` running totals, and its error
 * bodies (a bad key is a 400 `API_KEY_INVALID`). It enforces the rules the real API enforces
 * that a translator could break: alternating roles, named function responses, one response per
 * call, the thought signature on replayed calls, its thinking settings, and its structured
 * outputs (no field beyond a function declaration's own, such as `strict`; the calling modes it
 * knows, `VALIDATED` answered like `AUTO`; a `responseJsonSchema` in the keywords it takes):
 * simulator-request.ts. A
 * prompt with `[[sim:refusal=1]]` is blocked (`promptFeedback.blockReason: "SAFETY"`).
 */

type Json = Record<string, unknown>;

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
const GOOGLE_STATUSES = new Set([...Object.values(STATUS), 'FAILED_PRECONDITION', 'UNAUTHENTICATED']);

const FINISH: Record<SimChoice['finish'], string> = { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP' };

interface Logprobs {
  top: number;
}

/** How one reply is rendered: the simulator's signatures, what the request asked of thinking and of logprobs. */
interface Rendering {
  signatures: SimSignatures;
  thinking: Thinking;
  logprobs: Logprobs | null;
}

/** A part, signed when it must be: the first function call always (as the vendor does), the last text part of a thinking reply. */
function signed(part: Json, sign: boolean, render: Rendering): Json {
  return sign ? { ...part, thoughtSignature: render.signatures.sign(part) } : part;
}

const callPart = (call: SimChoice['toolCalls'][number], first: boolean, render: Rendering): Json =>
  signed({ functionCall: { name: call.name, args: JSON.parse(call.arguments) as unknown } }, first, render);

function logprobsResult(pieces: string[], options: Logprobs): Json {
  return {
    chosenCandidates: pieces.map((token) => ({ token, logProbability: -0.5 })),
    topCandidates: pieces.map((token) => ({
      candidates: Array.from({ length: options.top }, (_, i) => ({ token: i ? `${token.trim()}${i}` : token, logProbability: -0.5 - i })),
    })),
  };
}

/** Thoughts are counted beside the candidates (output = candidates + thoughts). */
const usageMetadata = (plan: ReplyPlan, candidates: number, thoughts: number): Json => ({
  promptTokenCount: plan.promptTokens,
  candidatesTokenCount: candidates,
  ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  totalTokenCount: plan.promptTokens + candidates + thoughts,
});

function responseBody(plan: ReplyPlan, model: string, id: string, render: Rendering): Json {
  return {
    candidates: plan.choices.map((choice, index) => {
      const thought: Json[] = render.thinking.shown ? [{ text: choice.thinking.join(''), thought: true }] : [];
      const text: Json[] = choice.pieces.length ? [signed({ text: choice.pieces.join('') }, render.thinking.on && !choice.toolCalls.length, render)] : [];
      const parts = [...thought, ...text, ...choice.toolCalls.map((call, i) => callPart(call, i === 0, render))];
      const candidate: Json = { content: { role: 'model', parts }, finishReason: FINISH[choice.finish], index };
      if (render.logprobs) candidate['logprobsResult'] = logprobsResult(choice.pieces, render.logprobs);
      return candidate;
    }),
    usageMetadata: usageMetadata(plan, plan.completionTokens - plan.reasoningTokens, plan.reasoningTokens),
    modelVersion: model,
    responseId: id,
  };
}

/** Stream chunks: one per thought piece (when shown), per text piece and per function call (parallel calls spread over chunks). */
function streamChunks(plan: ReplyPlan, model: string, id: string, render: Rendering): Json[] {
  const chunks: Json[] = [];
  let produced = 0;
  const thoughts = plan.reasoningTokens;
  plan.choices.forEach((choice, index) => {
    const last = choice.pieces.length - 1;
    const items: Array<{ part: Json; cost: number; piece?: string }> = [
      ...(render.thinking.shown ? choice.thinking.map((piece) => ({ part: { text: piece, thought: true }, cost: 0 })) : []),
      ...choice.pieces.map((piece, i) => ({
        part: signed({ text: piece }, render.thinking.on && !choice.toolCalls.length && i === last, render),
        cost: 1,
        piece,
      })),
      ...choice.toolCalls.map((call, i) => ({ part: callPart(call, i === 0, render), cost: 10 })),
    ];
    if (!items.length) items.push({ part: { text: '' }, cost: 0, piece: '' });
    items.forEach((item, i) => {
      produced += item.cost;
      const candidate: Json = { content: { role: 'model', parts: [item.part] }, index };
      if (render.logprobs && item.piece !== undefined) candidate['logprobsResult'] = logprobsResult([item.piece], render.logprobs);
      if (i === items.length - 1) candidate['finishReason'] = FINISH[choice.finish];
      chunks.push({ candidates: [candidate], usageMetadata: usageMetadata(plan, produced, thoughts), modelVersion: model, responseId: id });
    });
  });
  return chunks;
}

export function createBetaVendor(): SimVendor {
  const signatures = new SimSignatures();

  async function generate(ctx: SimContext, model: string, stream: boolean): Promise<void> {
    const body = (ctx.body ?? {}) as Json;
    const config = (body['generationConfig'] ?? {}) as Json;
    let thinking: Thinking;
    try {
      validateGenerateRequest(body);
      signatures.check(body['contents'] as Json[]);
      thinking = thinkingOf(config, model);
    } catch (error) {
      if (!(error instanceof InvalidArgument)) throw error;
      ctx.sim.sendError(ctx.res, 400, error.message, 'INVALID_ARGUMENT');
      return;
    }
    const request = { ...readGenerateRequest(body), reasoning: thinking.on };
    const directives = readDirectives(request.lastUserText);
    const fault = ctx.queued ?? faultFromDirectives(directives);
    if (await ctx.sim.applyFault(ctx.res, fault)) return;
    const plan = planReply(request);
    if (directives.refusal === 1) {
      // A blocked prompt: no candidate, only the reason (whole, or as the stream's one chunk).
      const blocked = {
        promptFeedback: { blockReason: 'SAFETY' },
        usageMetadata: usageMetadata(plan, 0, 0),
        modelVersion: model,
        responseId: randomBytes(9).toString('base64url'),
      };
      if (stream && ctx.url.searchParams.get('alt') === 'sse') await ctx.sim.sendFrames(ctx.res, [`data: ${JSON.stringify(blocked)}\r\n\r\n`], fault);
      else await ctx.sim.sendJson(ctx.res, stream ? [blocked] : blocked, fault);
      return;
    }
    const logprobs = config['responseLogprobs'] === true ? { top: typeof config['logprobs'] === 'number' ? config['logprobs'] : 0 } : null;
    const render: Rendering = { signatures, thinking, logprobs };
    const id = randomBytes(9).toString('base64url');
    if (!stream) {
      await ctx.sim.sendJson(ctx.res, responseBody(plan, model, id, render), fault);
      return;
    }
    const chunks = streamChunks(plan, model, id, render);
    if (ctx.url.searchParams.get('alt') === 'sse')
      await ctx.sim.sendFrames(
        ctx.res,
        chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`),
        fault,
      );
    else await ctx.sim.sendJson(ctx.res, chunks, fault);
  }

  async function embed(ctx: SimContext, model: string, batch: boolean): Promise<void> {
    const body = (ctx.body ?? {}) as Json;
    const requests = (batch ? (body['requests'] ?? []) : [body]) as Json[];
    const wrong = requests.find((r) => batch && r['model'] !== `models/${model}`);
    if (wrong) {
      ctx.sim.sendError(
        ctx.res,
        400,
        `Model in the request (${String(wrong['model'])}) does not match the model in the URL (models/${model}).`,
        'INVALID_ARGUMENT',
      );
      return;
    }
    const texts = requests.map((r) => textOf(partsOf(r['content'] as Json)));
    const fault = ctx.queued ?? faultFromDirectives(readDirectives(texts.join(' ')));
    if (await ctx.sim.applyFault(ctx.res, fault)) return;
    const embeddings = requests.map((r, i) => {
      const dimensions = typeof r['outputDimensionality'] === 'number' ? r['outputDimensionality'] : 8;
      return { values: embedText(texts[i] as string, dimensions) };
    });
    await ctx.sim.sendJson(ctx.res, batch ? { embeddings } : { embedding: embeddings[0] }, fault);
  }

  return {
    name: 'beta',
    routes: [
      {
        method: 'POST',
        pattern: /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|batchEmbedContents|embedContent)$/,
        handle: async (ctx, match) => {
          const model = decodeURIComponent(match[1] as string);
          const action = match[2];
          if (action === 'generateContent' || action === 'streamGenerateContent') await generate(ctx, model, action === 'streamGenerateContent');
          else await embed(ctx, model, action === 'batchEmbedContents');
        },
      },
      betaCountRoute(readGenerateRequest),
    ],
    authenticated: (headers, url, apiKey) => headers['x-goog-api-key'] === apiKey || url.searchParams.get('key') === apiKey,
    errorBody(status: number, message: string, type?: string): VendorErrorBody {
      if (status === 401) {
        // The vendor answers a bad key with 400, not 401.
        const details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }];
        return { status: 400, body: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details } } };
      }
      const googleStatus = type && GOOGLE_STATUSES.has(type) ? type : (STATUS[status] ?? 'INTERNAL');
      return { status, body: { error: { code: status, message, status: googleStatus } } };
    },
    streamErrorFrame: (message, type) => `data: ${JSON.stringify({ error: { code: 503, message, status: type ?? 'UNAVAILABLE' } })}\r\n\r\n`,
  };
}

/** A beta simulator, not yet listening. */
export const createBetaSimulator = (options: SimOptions = {}): SimServer => new SimServer(createBetaVendor(), options);
