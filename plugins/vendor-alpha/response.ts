import type { JsonObject, Usage } from '../../src/plugin-api.js';
import {
  ledgerUsage,
  type FinishReason,
  type ReasoningState,
  type Reply,
  type ReplyChoice,
  type ReplyReasoning,
  type ReplyToolCall,
  type ReplyUsage,
} from '../../src/toolkit/neutral.js';
import { tokenCount } from '../../src/toolkit/vendor.js';
import { JSON_TOOL } from './structured.js';

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

/** What the caller is told when alpha refuses to answer (`stop_reason: "refusal"`) and gives no explanation. */
const REFUSED = 'The model declined to answer this request.';

/**
 * Alpha's refusal as the reply's refusal text: its `stop_details` explanation where it gives one
 * (with the category), else a plain sentence; null when the reply is no refusal. The model's own
 * text, if any came before it stopped, stays the reply's content.
 */
export function alphaRefusal(stopReason: unknown, details: unknown): string | null {
  if (stopReason !== 'refusal') return null;
  const stop = (details ?? {}) as JsonObject;
  const explanation = typeof stop['explanation'] === 'string' && stop['explanation'] !== '' ? stop['explanation'] : REFUSED;
  return typeof stop['category'] === 'string' ? `${explanation} (${stop['category']})` : explanation;
}

/**
 * Alpha usage: input excludes cache reads and writes, so prompt = input + both, each also kept apart (priced at its own rate, the
 * writes' one-hour part, `cache_creation.ephemeral_1h_input_tokens`, at its own too). Output includes
 * thinking; `output_tokens_details.thinking_tokens`, where sent, says how much of it.
 */
export function alphaUsage(raw: unknown, previous?: ReplyUsage): ReplyUsage {
  const usage = (raw ?? {}) as JsonObject;
  const has = (field: string): boolean => typeof usage[field] === 'number';
  const cacheRead = tokenCount(usage['cache_read_input_tokens']);
  const cacheWrite = tokenCount(usage['cache_creation_input_tokens']);
  const prompt = tokenCount(usage['input_tokens']) + cacheRead + cacheWrite;
  const out: ReplyUsage = {
    promptTokens: has('input_tokens') || !previous ? prompt : previous.promptTokens,
    completionTokens: tokenCount(usage['output_tokens']),
  };
  const cached = has('cache_read_input_tokens') || !previous ? cacheRead : (previous.cachedTokens ?? 0);
  if (cached) out.cachedTokens = cached;
  const written = has('cache_creation_input_tokens') || !previous ? cacheWrite : (previous.cacheWriteTokens ?? 0);
  if (written) out.cacheWriteTokens = written;
  // `cache_creation` splits the writes by time to live; of it only the one-hour part is priced apart.
  const creation = usage['cache_creation'] as JsonObject | undefined;
  const forAnHour = creation && typeof creation === 'object' ? tokenCount(creation['ephemeral_1h_input_tokens']) : (previous?.cacheWrite1hTokens ?? 0);
  if (forAnHour) out.cacheWrite1hTokens = forAnHour;
  const details = usage['output_tokens_details'] as JsonObject | undefined;
  const thinking = details && typeof details['thinking_tokens'] === 'number' ? tokenCount(details['thinking_tokens']) : (previous?.reasoningTokens ?? 0);
  if (thinking) out.reasoningTokens = thinking;
  return out;
}

/**
 * A stream's counts so far: until `message_delta` alpha's output count is provisional, so the
 * output deltas relayed (thinking and text) stand in, marked as the gateway's estimate.
 */
export function alphaStreamUsage(vendor: ReplyUsage | null | undefined, sawOutputCount: boolean, relayedDeltas: number): Usage | null {
  if (!vendor) return null;
  const usage = ledgerUsage(vendor);
  return sawOutputCount ? usage : { ...usage, completionTokens: relayedDeltas, estimated: true };
}

/** A thinking block's opaque state: its signature, or a redacted block's data (handed back unchanged on the next turn). */
export function thinkingState(block: JsonObject): ReasoningState | null {
  if (block['type'] === 'redacted_thinking') return { family: 'alpha', kind: 'redacted', data: String(block['data'] ?? '') };
  return typeof block['signature'] === 'string' && block['signature'] !== '' ? { family: 'alpha', kind: 'signature', data: block['signature'] } : null;
}

export function alphaReply(message: JsonObject, jsonMode: boolean): Reply {
  const blocks = Array.isArray(message['content']) ? (message['content'] as JsonObject[]) : [];
  const texts: string[] = [];
  const toolCalls: ReplyToolCall[] = [];
  const reasoning: ReplyReasoning[] = [];
  let json: string | null = null;
  for (const block of blocks) {
    if (block['type'] === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
    if (block['type'] === 'thinking' || block['type'] === 'redacted_thinking') {
      reasoning.push({ text: typeof block['thinking'] === 'string' ? block['thinking'] : '', state: thinkingState(block) });
    }
    if (block['type'] !== 'tool_use') continue;
    const args = JSON.stringify(block['input'] ?? {});
    if (jsonMode && block['name'] === JSON_TOOL) json = args;
    else toolCalls.push({ id: String(block['id']), name: String(block['name']), arguments: args });
  }
  // A forced tool call has no text beside it; should the model add some, the JSON alone is the answer.
  const content = json ?? (texts.length ? texts.join('') : toolCalls.length ? null : '');
  const refusal = alphaRefusal(message['stop_reason'], message['stop_details']);
  const choice: ReplyChoice = {
    content: refusal && content === '' ? null : content,
    refusal,
    toolCalls,
    finish: alphaFinish(message['stop_reason'], toolCalls.length > 0),
  };
  if (reasoning.length) choice.reasoning = reasoning;
  return { choices: [choice], usage: alphaUsage(message['usage']) };
}
