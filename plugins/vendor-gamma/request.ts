import { invalidRequest, type JsonObject, type NeutralRequest, type Part, type ToolChoice, type Turn } from '../../src/plugin-api.js';

/**
 * The neutral request → a reference chat request for the gamma upstream (whose wire format is
 * the reference one), for callers of another format (docs/vendor-formats.md#gamma). What the
 * reference format cannot carry is refused with a 400 naming the caller's parameter.
 */

function userContent(parts: readonly Part[]): JsonObject[] {
  return parts.flatMap((part): JsonObject[] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text }];
    if (part.type !== 'image') return [];
    const url = part.source.kind === 'url' ? part.source.url : `data:${part.source.mediaType};base64,${part.source.data}`;
    return [{ type: 'image_url', image_url: { url } }];
  });
}

/** One neutral turn as reference messages: tool results are `tool` messages, ahead of the user's own content. */
function messages(turn: Turn): JsonObject[] {
  if (turn.role === 'user') {
    const results = turn.parts.flatMap((part) => (part.type === 'tool_result' ? [{ role: 'tool', tool_call_id: part.id, content: part.content }] : []));
    const content = userContent(turn.parts);
    return content.length ? [...results, { role: 'user', content }] : results;
  }
  const text = turn.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const calls = turn.parts.flatMap((part) =>
    part.type === 'tool_call' ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: JSON.stringify(part.args) } }] : [],
  );
  // Reasoning another vendor showed cannot be replayed to gamma; only its text and calls go back.
  const message: JsonObject = { role: 'assistant', content: text === '' ? null : text };
  if (calls.length) message['tool_calls'] = calls;
  return [message];
}

function toolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'object' ? { type: 'function', function: { name: choice.name } } : choice;
}

/** The caller's reasoning request as the reference format's `reasoning_effort` (docs/reasoning.md). */
function reasoningEffort(request: NeutralRequest): string | null {
  const reasoning = request.reasoning;
  if (reasoning === null) return null;
  if (reasoning.kind === 'effort') return reasoning.effort;
  if (reasoning.kind === 'off') return 'none';
  return reasoning.tokens <= 1024 ? 'low' : reasoning.tokens <= 8192 ? 'medium' : 'high';
}

export function gammaChatBody(request: NeutralRequest, upstreamModel: string, stream: boolean): JsonObject {
  if (request.topK !== null) throw invalidRequest('top_k is not supported by this model.', 'top_k');
  const body: JsonObject = { model: upstreamModel, messages: [] };
  const out = body['messages'] as JsonObject[];
  if (request.system.length) out.push({ role: 'system', content: request.system.join('\n\n') });
  for (const turn of request.turns) out.push(...messages(turn));
  const set = (field: string, value: unknown): void => {
    if (value !== null && value !== undefined) body[field] = value;
  };
  set('max_completion_tokens', request.maxTokens);
  set('temperature', request.temperature);
  set('top_p', request.topP);
  if (request.stop.length) body['stop'] = request.stop;
  if (request.n !== 1) body['n'] = request.n;
  set('seed', request.seed);
  set('user', request.user);
  set('presence_penalty', request.presencePenalty);
  set('frequency_penalty', request.frequencyPenalty);
  if (request.logprobs) {
    body['logprobs'] = true;
    set('top_logprobs', request.topLogprobs);
  }
  if (request.tools.length) {
    body['tools'] = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), ...(tool.parameters ? { parameters: tool.parameters } : {}) },
    }));
    if (!request.parallelToolCalls) body['parallel_tool_calls'] = false;
  }
  if (request.toolChoice !== null) body['tool_choice'] = toolChoice(request.toolChoice);
  const effort = reasoningEffort(request);
  if (effort) body['reasoning_effort'] = effort;
  const format = request.responseFormat;
  if (format) body['response_format'] = format.type === 'json_object' ? format : { type: 'json_schema', json_schema: { name: format.name, schema: format.schema } };
  if (stream) {
    body['stream'] = true;
    body['stream_options'] = { include_usage: true };
  }
  return body;
}
