import { tokenCount, type FinishReason, type JsonObject, type Reply, type ReplyToolCall, type ReplyUsage } from '../../src/plugin-api.js';
import { JSON_TOOL } from './request.js';

/** Alpha message → the neutral reply (docs/vendor-formats.md#alpha-response). */

const FINISH: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** A stop reason → ours; `tool_use` whose only tool was the JSON-mode tool is a plain `stop`. */
export function alphaFinish(stopReason: unknown, calledUserTools: boolean): FinishReason {
  const mapped = FINISH[String(stopReason)] ?? 'stop';
  return mapped === 'tool_calls' && !calledUserTools ? 'stop' : mapped;
}

/** Alpha usage: input excludes cache reads and writes, so prompt = input + both. */
export function alphaUsage(raw: unknown, previous?: ReplyUsage): ReplyUsage {
  const usage = (raw ?? {}) as JsonObject;
  const has = (field: string): boolean => typeof usage[field] === 'number';
  const cacheRead = tokenCount(usage['cache_read_input_tokens']);
  const prompt = tokenCount(usage['input_tokens']) + cacheRead + tokenCount(usage['cache_creation_input_tokens']);
  const out: ReplyUsage = {
    promptTokens: has('input_tokens') || !previous ? prompt : previous.promptTokens,
    completionTokens: tokenCount(usage['output_tokens']),
  };
  const cached = has('cache_read_input_tokens') || !previous ? cacheRead : (previous.cachedTokens ?? 0);
  if (cached) out.cachedTokens = cached;
  return out;
}

export function alphaReply(message: JsonObject, jsonMode: boolean): Reply {
  const blocks = Array.isArray(message['content']) ? (message['content'] as JsonObject[]) : [];
  const texts: string[] = [];
  const toolCalls: ReplyToolCall[] = [];
  let json: string | null = null;
  for (const block of blocks) {
    if (block['type'] === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
    if (block['type'] !== 'tool_use') continue;
    const args = JSON.stringify(block['input'] ?? {});
    if (jsonMode && block['name'] === JSON_TOOL) json = args;
    else toolCalls.push({ id: String(block['id']), name: String(block['name']), arguments: args });
  }
  // A forced tool call has no text beside it; should the model add some, the JSON alone is the answer.
  const content = json ?? (texts.length ? texts.join('') : toolCalls.length ? null : '');
  return {
    choices: [{ content, toolCalls, finish: alphaFinish(message['stop_reason'], toolCalls.length > 0) }],
    usage: alphaUsage(message['usage']),
  };
}
