import { randomBytes } from 'node:crypto';
import { float32Base64 } from '../../src/toolkit/reference-format.js';
import {
  embedText,
  faultFromDirectives,
  planReply,
  readDirectives,
  SimServer,
  type ReplyPlan,
  type SimContext,
  type SimOptions,
  type SimRequest,
  type SimToolChoice,
  type SimVendor,
  type VendorErrorBody,
} from '../../src/toolkit/simulator.js';

/**
 * Simulator of the gamma family's upstream, which speaks the reference format itself
 * (`/v1/chat/completions`, `/v1/completions`, `/v1/embeddings`, Bearer auth, SSE ending in
 * `data: [DONE]`, the usage chunk only with `stream_options.include_usage`; `reasoning_effort`
 * other than `none` makes the model reason unseen, counted in `completion_tokens_details`).
 */

type Json = Record<string, unknown>;

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_api_key',
  404: 'not_found',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  502: 'server_error',
  503: 'server_error',
  504: 'server_error',
};

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => ((part as Json)['type'] === 'text' ? String((part as Json)['text'] ?? '') : ''))
      .filter(Boolean)
      .join(' ');
  }
  return '';
}

function toolChoiceOf(value: unknown): SimToolChoice {
  if (value === 'none' || value === 'required' || value === 'auto') return value;
  const named = (value as Json | undefined)?.['function'] as Json | undefined;
  return typeof named?.['name'] === 'string' ? { name: named['name'] } : 'auto';
}

/** The reference-format chat request, read into the simulator's neutral shape. */
export function readChatRequest(body: Json): SimRequest {
  const messages = (Array.isArray(body['messages']) ? body['messages'] : []) as Json[];
  const last = messages[messages.length - 1];
  const trailingTools: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.['role'] === 'tool'; i--) {
    trailingTools.unshift(textOf(messages[i]?.['content']));
  }
  const format = body['response_format'] as Json | undefined;
  let jsonSchema: Json | null = null;
  if (format?.['type'] === 'json_object') jsonSchema = {};
  if (format?.['type'] === 'json_schema') jsonSchema = ((format['json_schema'] as Json | undefined)?.['schema'] as Json | undefined) ?? {};
  const tools = ((Array.isArray(body['tools']) ? body['tools'] : []) as Json[]).map((tool) => {
    const fn = (tool['function'] ?? {}) as Json;
    return { name: String(fn['name']), parameters: fn['parameters'] };
  });
  const max = body['max_completion_tokens'] ?? body['max_tokens'];
  return {
    texts: messages.map((m) => textOf(m['content'])),
    lastUserText: last?.['role'] === 'user' ? textOf(last['content']) : '',
    toolResults: trailingTools,
    tools,
    toolChoice: toolChoiceOf(body['tool_choice']),
    jsonSchema,
    maxTokens: typeof max === 'number' ? max : null,
    choices: typeof body['n'] === 'number' ? body['n'] : 1,
    // The model reasons unseen: only the usage says so.
    reasoning: typeof body['reasoning_effort'] === 'string' && body['reasoning_effort'] !== 'none',
  };
}

const usageOf = (plan: ReplyPlan): Json => ({
  prompt_tokens: plan.promptTokens,
  completion_tokens: plan.completionTokens,
  total_tokens: plan.promptTokens + plan.completionTokens,
  ...(plan.reasoningTokens ? { completion_tokens_details: { reasoning_tokens: plan.reasoningTokens } } : {}),
});

function chatBody(id: string, created: number, model: string, plan: ReplyPlan): Json {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: plan.choices.map((choice, index) => ({
      index,
      message: {
        role: 'assistant',
        content: choice.toolCalls.length ? null : choice.pieces.join(''),
        refusal: null,
        ...(choice.toolCalls.length
          ? { tool_calls: choice.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      },
      logprobs: null,
      finish_reason: choice.finish,
    })),
    usage: usageOf(plan),
  };
}

interface StreamEnvelope {
  id: string;
  object: string;
  created: number;
  model: string;
  includeUsage: boolean;
}

/** SSE frames of one reference stream: `frame(choices)` adds one, `close(plan)` adds the usage chunk (if asked) and [DONE]. */
function framer(envelope: StreamEnvelope): { frame: (choices: Json[]) => void; close: (plan: ReplyPlan) => string[] } {
  const { includeUsage, ...fields } = envelope;
  const frames: string[] = [];
  const push = (choices: Json[], usage: Json | null): void => {
    const chunk: Json = { ...fields, choices };
    if (includeUsage) chunk['usage'] = usage;
    frames.push(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  return {
    frame: (choices) => push(choices, null),
    close: (plan) => {
      if (includeUsage) push([], usageOf(plan));
      frames.push('data: [DONE]\n\n');
      return frames;
    },
  };
}

function chatFrames(envelope: StreamEnvelope, plan: ReplyPlan): string[] {
  const { frame, close } = framer(envelope);
  plan.choices.forEach((choice, index) => {
    frame([{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
    for (const piece of choice.pieces) frame([{ index, delta: { content: piece }, logprobs: null, finish_reason: null }]);
    choice.toolCalls.forEach((call, callIndex) => {
      const head = { index: callIndex, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
      frame([{ index, delta: { tool_calls: [head] }, logprobs: null, finish_reason: null }]);
      const half = Math.ceil(call.arguments.length / 2);
      for (const part of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
        if (part) frame([{ index, delta: { tool_calls: [{ index: callIndex, function: { arguments: part } }] }, logprobs: null, finish_reason: null }]);
      }
    });
    frame([{ index, delta: {}, logprobs: null, finish_reason: choice.finish }]);
  });
  return close(plan);
}

const newId = (prefix: string): string => `${prefix}${randomBytes(12).toString('base64url')}`;
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function createGammaVendor(): SimVendor {
  async function chat(ctx: SimContext): Promise<void> {
    const body = (ctx.body ?? {}) as Json;
    const request = readChatRequest(body);
    const fault = ctx.queued ?? faultFromDirectives(readDirectives(request.lastUserText));
    if (await ctx.sim.applyFault(ctx.res, fault)) return;
    const plan = planReply(request);
    const model = String(body['model']);
    const id = newId('chatcmpl-');
    if (body['stream'] === true) {
      const includeUsage = (body['stream_options'] as Json | undefined)?.['include_usage'] === true;
      const envelope = { id, object: 'chat.completion.chunk', created: nowSeconds(), model, includeUsage };
      await ctx.sim.sendFrames(ctx.res, chatFrames(envelope, plan), fault);
    } else {
      await ctx.sim.sendJson(ctx.res, chatBody(id, nowSeconds(), model, plan), fault);
    }
  }

  async function completion(ctx: SimContext): Promise<void> {
    const body = (ctx.body ?? {}) as Json;
    const prompt = Array.isArray(body['prompt']) ? body['prompt'].map(String).join(' ') : String(body['prompt'] ?? '');
    const max = body['max_tokens'];
    const request: SimRequest = {
      texts: [prompt],
      lastUserText: prompt,
      toolResults: [],
      tools: [],
      toolChoice: 'none',
      jsonSchema: null,
      maxTokens: typeof max === 'number' ? max : 16,
      choices: typeof body['n'] === 'number' ? body['n'] : 1,
    };
    const fault = ctx.queued ?? faultFromDirectives(readDirectives(prompt));
    if (await ctx.sim.applyFault(ctx.res, fault)) return;
    const plan = planReply(request);
    const id = newId('cmpl-');
    const model = String(body['model']);
    const created = nowSeconds();
    if (body['stream'] === true) {
      const includeUsage = (body['stream_options'] as Json | undefined)?.['include_usage'] === true;
      const { frame, close } = framer({ id, object: 'text_completion', created, model, includeUsage });
      plan.choices.forEach((choice, index) => {
        for (const piece of choice.pieces) frame([{ text: piece, index, logprobs: null, finish_reason: null }]);
        frame([{ text: '', index, logprobs: null, finish_reason: choice.finish }]);
      });
      await ctx.sim.sendFrames(ctx.res, close(plan), fault);
      return;
    }
    await ctx.sim.sendJson(
      ctx.res,
      {
        id,
        object: 'text_completion',
        created,
        model,
        choices: plan.choices.map((choice, index) => ({ text: choice.pieces.join(''), index, logprobs: null, finish_reason: choice.finish })),
        usage: usageOf(plan),
      },
      fault,
    );
  }

  async function embeddings(ctx: SimContext): Promise<void> {
    const body = (ctx.body ?? {}) as Json;
    const inputs = Array.isArray(body['input']) ? body['input'].map(String) : [String(body['input'] ?? '')];
    const fault = ctx.queued ?? faultFromDirectives(readDirectives(inputs.join(' ')));
    if (await ctx.sim.applyFault(ctx.res, fault)) return;
    const dimensions = typeof body['dimensions'] === 'number' ? body['dimensions'] : 8;
    const base64 = body['encoding_format'] === 'base64';
    const tokens = inputs.reduce((sum, text) => sum + text.split(/\s+/).filter(Boolean).length, 0);
    await ctx.sim.sendJson(
      ctx.res,
      {
        object: 'list',
        model: String(body['model']),
        data: inputs.map((text, index) => {
          const vector = embedText(text, dimensions);
          return { object: 'embedding', index, embedding: base64 ? float32Base64(vector) : vector };
        }),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      },
      fault,
    );
  }

  return {
    name: 'gamma',
    routes: [
      { method: 'POST', pattern: /^\/v1\/chat\/completions$/, handle: chat },
      { method: 'POST', pattern: /^\/v1\/completions$/, handle: completion },
      { method: 'POST', pattern: /^\/v1\/embeddings$/, handle: embeddings },
    ],
    authenticated: (headers, _url, apiKey) => headers.authorization === `Bearer ${apiKey}`,
    errorBody(status: number, message: string, type?: string): VendorErrorBody {
      return {
        status,
        body: { error: { message, type: type ?? ERROR_TYPES[status] ?? 'server_error', param: null, code: null } },
      };
    },
    streamErrorFrame: (message, type) => `data: ${JSON.stringify({ error: { message, type: type ?? 'server_error', param: null, code: null } })}\n\n`,
  };
}

/** A gamma simulator, not yet listening. */
export const createGammaSimulator = (options: SimOptions = {}): SimServer => new SimServer(createGammaVendor(), options);
