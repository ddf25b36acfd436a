import { randomBytes } from 'node:crypto';
import {
  countWords,
  faultFromDirectives,
  planReply,
  readDirectives,
  SimServer,
  type ReplyPlan,
  type SimChoice,
  type SimContext,
  type SimOptions,
  type SimRequest,
  type SimToolChoice,
  type SimVendor,
  type VendorErrorBody,
} from '../../src/toolkit/simulator.js';
import { CacheRefused, SimPromptCache, type CacheUsage } from './simulator-cache.js';
import { SimThinking, ThinkingRefused } from './simulator-thinking.js';
import { alphaCountRoute } from './simulator-count.js';
import { checkStructuredOutputs, SchemaRefused } from './simulator-schema.js';

/**
 * Simulator of the alpha family's upstream, an Anthropic-Messages-style API (docs/vendor-formats.md#alpha):
 * `POST /v1/messages` with `x-api-key` and `anthropic-version`, content blocks, `tool_use` /
 * `tool_result`, named SSE events (`message_start` … `message_stop`, `input_json_delta`
 * fragments, `event: error` mid-stream on demand), extended thinking (simulator-thinking.ts),
 * structured outputs (`output_config.format` answered with JSON of its schema; strict tools and
 * schemas checked as alpha compiles them: simulator-schema.ts), refusals on demand
 * (`[[sim:refusal=1]]`), prompt caching (`cache_control` breakpoints, reads and writes counted:
 * simulator-cache.ts), and its error bodies. It also enforces the conversation rules the real API enforces, so a
 * translator that breaks them fails here too.
 */

type Json = Record<string, unknown>;

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

class InvalidRequest extends Error {}

const blocksOf = (message: Json): Json[] =>
  typeof message['content'] === 'string' ? [{ type: 'text', text: message['content'] }] : ((message['content'] ?? []) as Json[]);

const textOf = (blocks: Json[]): string =>
  blocks
    .filter((b) => b['type'] === 'text')
    .map((b) => String(b['text']))
    .join(' ');

function resultText(block: Json): string {
  const content = block['content'];
  return typeof content === 'string' ? content : textOf((content ?? []) as Json[]);
}

/** A block's share of the input tokens the simulator counts (readMessagesRequest's texts): its text or tool result's words. */
function blockTokens(block: Json): number {
  if (block['type'] === 'text') return countWords(String(block['text']));
  return block['type'] === 'tool_result' ? countWords(resultText(block)) : 0;
}

/** The checks of the real API that a translator could get wrong. */
function validate(body: Json): void {
  if (typeof body['max_tokens'] !== 'number') throw new InvalidRequest('max_tokens: Field required');
  const messages = body['messages'];
  if (!Array.isArray(messages) || !messages.length) throw new InvalidRequest('messages: at least one message is required');
  const declared = Array.isArray(body['tools']) && body['tools'].length > 0;
  (messages as Json[]).forEach((message, i) => {
    if (i === 0 && message['role'] !== 'user') throw new InvalidRequest('messages: first message must use the "user" role');
    if (i > 0 && message['role'] === (messages[i - 1] as Json)['role'])
      throw new InvalidRequest('messages: roles must alternate between "user" and "assistant"');
    const blocks = blocksOf(message);
    const next = messages[i + 1] as Json | undefined;
    const answered = new Set(
      next
        ? blocksOf(next)
            .filter((b) => b['type'] === 'tool_result')
            .map((b) => b['tool_use_id'])
        : [],
    );
    for (const block of blocks) {
      if (block['type'] === 'text' && String(block['text']) === '') throw new InvalidRequest(`messages.${i}: text content blocks must be non-empty`);
      if ((block['type'] === 'tool_use' || block['type'] === 'tool_result') && !declared) {
        throw new InvalidRequest('Requests which include `tool_use` or `tool_result` blocks must define tools.');
      }
      if (block['type'] === 'tool_use') {
        if (!TOOL_ID.test(String(block['id']))) throw new InvalidRequest(`messages.${i}: tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
        if (!answered.has(block['id'])) {
          throw new InvalidRequest(`messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${String(block['id'])}`);
        }
      }
    }
  });
}

function toolChoiceOf(value: unknown): SimToolChoice {
  const choice = (value ?? {}) as Json;
  if (choice['type'] === 'none') return 'none';
  if (choice['type'] === 'any') return 'required';
  if (choice['type'] === 'tool' && typeof choice['name'] === 'string') return { name: choice['name'] };
  return 'auto';
}

/** The Messages request, read into the simulator's neutral shape. */
export function readMessagesRequest(body: Json): SimRequest {
  const messages = body['messages'] as Json[];
  const system = body['system'];
  const systemText = typeof system === 'string' ? system : textOf((system ?? []) as Json[]);
  const last = messages[messages.length - 1] as Json;
  const lastBlocks = last['role'] === 'user' ? blocksOf(last) : [];
  const tools = ((body['tools'] ?? []) as Json[]).map((tool) => ({ name: String(tool['name']), parameters: tool['input_schema'] }));
  const format = (body['output_config'] as Json | undefined)?.['format'] as Json | undefined;
  return {
    texts: [
      systemText,
      ...messages.map(
        (m) =>
          textOf(blocksOf(m)) +
          ' ' +
          blocksOf(m)
            .filter((b) => b['type'] === 'tool_result')
            .map(resultText)
            .join(' '),
      ),
    ],
    lastUserText: textOf(lastBlocks),
    toolResults: lastBlocks.filter((b) => b['type'] === 'tool_result').map(resultText),
    tools,
    toolChoice: toolChoiceOf(body['tool_choice']),
    jsonSchema: format?.['type'] === 'json_schema' ? (format['schema'] as Json) : null,
    maxTokens: body['max_tokens'] as number,
    choices: 1,
    reasoning: ['enabled', 'adaptive'].includes(String((body['thinking'] as Json | undefined)?.['type'])),
  };
}

const STOP_REASON: Record<SimChoice['finish'], string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' };

/** What a refusing model says, and how alpha explains it (`stop_details`). */
const REFUSAL_TEXT = 'I cannot help with that.';
const REFUSAL_DETAILS: Json = { type: 'refusal', category: 'cyber', explanation: 'The request asks for harmful content.' };
/** A refusal: the model's sentence instead of its answer, no tool calls. */
const refused = (choice: SimChoice): SimChoice => ({ ...choice, pieces: [REFUSAL_TEXT], toolCalls: [] });
/** The stop fields of a message or its `message_delta`. */
const stopFields = (choice: SimChoice, refusal: boolean): Json =>
  refusal ? { stop_reason: 'refusal', stop_sequence: null, stop_details: REFUSAL_DETAILS } : { stop_reason: STOP_REASON[choice.finish], stop_sequence: null };
const toolUseId = (id: string): string => id.replace(/^call_/, 'toolu_');

function contentBlocks(choice: SimChoice): Json[] {
  const blocks: Json[] = [];
  if (choice.pieces.length) blocks.push({ type: 'text', text: choice.pieces.join('') });
  for (const call of choice.toolCalls) blocks.push({ type: 'tool_use', id: toolUseId(call.id), name: call.name, input: JSON.parse(call.arguments) as unknown });
  return blocks;
}

/** Output counts include thinking; how much of it is thinking is said beside them when the model thought. */
function outputUsage(plan: ReplyPlan): Json {
  return { output_tokens: plan.completionTokens, ...(plan.reasoningTokens ? { output_tokens_details: { thinking_tokens: plan.reasoningTokens } } : {}) };
}

function messageBody(id: string, model: string, plan: ReplyPlan, input: CacheUsage, thinking: Json[], refusal: boolean): Json {
  const choice = plan.choices[0] as SimChoice;
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [...thinking, ...contentBlocks(choice)],
    ...stopFields(choice, refusal),
    usage: { ...input, ...outputUsage(plan) },
  };
}

const sse = (data: Json): string => `event: ${String(data['type'])}\ndata: ${JSON.stringify(data)}\n\n`;

function streamFrames(id: string, model: string, plan: ReplyPlan, input: CacheUsage, thinking: Json[], refusal: boolean): string[] {
  const choice = plan.choices[0] as SimChoice;
  const frames = [
    sse({
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...input, output_tokens: 1 },
      },
    }),
    ...thinking.map(sse),
  ];
  let index = thinking.length ? 1 : 0;
  if (choice.pieces.length) {
    frames.push(sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }), sse({ type: 'ping' }));
    for (const piece of choice.pieces) frames.push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }));
    frames.push(sse({ type: 'content_block_stop', index }));
    index += 1;
  }
  for (const call of choice.toolCalls) {
    frames.push(sse({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolUseId(call.id), name: call.name, input: {} } }));
    const half = Math.ceil(call.arguments.length / 2);
    for (const part of ['', call.arguments.slice(0, half), call.arguments.slice(half)]) {
      frames.push(sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } }));
    }
    frames.push(sse({ type: 'content_block_stop', index }));
    index += 1;
  }
  frames.push(sse({ type: 'message_delta', delta: stopFields(choice, refusal), usage: outputUsage(plan) }), sse({ type: 'message_stop' }));
  return frames;
}

const newId = (prefix: string): string =>
  `${prefix}${randomBytes(12)
    .toString('base64url')
    .replace(/[^a-zA-Z0-9]/g, 'x')}`;

export function createAlphaVendor(): SimVendor {
  const thinking = new SimThinking();
  const cache = new SimPromptCache();

  async function messages(ctx: SimContext): Promise<void> {
    const body = (ctx.body ?? {}) as Json;
    if (!ctx.req.headers['anthropic-version']) {
      ctx.sim.sendError(ctx.res, 400, 'anthropic-version: header is required', 'invalid_request_error');
      return;
    }
    try {
      validate(body);
      thinking.check(body);
      checkStructuredOutputs(body);
      cache.check(body);
    } catch (error) {
      const refusal = error instanceof InvalidRequest || error instanceof ThinkingRefused || error instanceof SchemaRefused || error instanceof CacheRefused;
      if (!refusal) throw error;
      ctx.sim.sendError(ctx.res, 400, error.message, 'invalid_request_error');
      return;
    }
    const request = readMessagesRequest(body);
    const directives = readDirectives(request.lastUserText);
    const fault = ctx.queued ?? faultFromDirectives(directives);
    if (await ctx.sim.applyFault(ctx.res, fault)) return;
    const refusal = directives.refusal === 1;
    const planned = planReply(request);
    const plan = refusal ? { ...planned, choices: planned.choices.map(refused) } : planned;
    const choice = plan.choices[0] as SimChoice;
    const redacted = directives.redacted === 1;
    const id = newId('msg_');
    const model = String(body['model']);
    const input = cache.usage(body, plan.promptTokens, blockTokens);
    if (body['stream'] === true) await ctx.sim.sendFrames(ctx.res, streamFrames(id, model, plan, input, thinking.events(choice, 0, redacted), refusal), fault);
    else await ctx.sim.sendJson(ctx.res, messageBody(id, model, plan, input, thinking.block(choice, redacted), refusal), fault);
  }

  return {
    name: 'alpha',
    routes: [{ method: 'POST', pattern: /^\/v1\/messages$/, handle: messages }, alphaCountRoute(readMessagesRequest)],
    authenticated: (headers, _url, apiKey) => headers['x-api-key'] === apiKey || headers.authorization === `Bearer ${apiKey}`,
    errorBody(status: number, message: string, type?: string): VendorErrorBody {
      const errorType = type && Object.values(ERROR_TYPES).includes(type) ? type : (ERROR_TYPES[status] ?? 'api_error');
      return {
        status,
        body: { type: 'error', error: { type: errorType, message }, request_id: newId('req_') },
        headers: { 'request-id': newId('req_') },
      };
    },
    streamErrorFrame: (message, type) => sse({ type: 'error', error: { type: type ?? 'overloaded_error', message } }),
  };
}

/** An alpha simulator, not yet listening. */
export const createAlphaSimulator = (options: SimOptions = {}): SimServer => new SimServer(createAlphaVendor(), options);
