import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { planReply, type ReplyPlan, type SimChoice, type SimRequest, type SimToolChoice } from '../../src/simulators/reply-plan.js';

/**
 * A Responses API server's answer, for the capture server (capture-server.ts): what a client that
 * speaks `POST /v1/responses` (Codex CLI, the AI SDK, the Agents SDK, LangChain) needs to carry a
 * conversation on (a message, or a function call, then text after its output; JSON for
 * `text.format`), planned by the simulators' reply planner and rendered as a response object or
 * its event stream. No family simulates this format: it is the gateway's ingress, not a vendor's.
 */

type Json = Record<string, unknown>;

const textOfContent = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Json[])
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
    .filter(Boolean)
    .join(' ');
};

function toolChoiceOf(value: unknown): SimToolChoice {
  if (value === 'none' || value === 'required' || value === 'auto') return value;
  const named = value as Json | undefined;
  return typeof named?.['name'] === 'string' ? { name: named['name'] } : 'auto';
}

/** Function tools, with those a `namespace` tool groups (under their own names). */
function functionTools(tools: Json[]): SimRequest['tools'] {
  return tools.flatMap((tool) => {
    if (tool['type'] === 'function') return [{ name: String(tool['name']), parameters: tool['parameters'] }];
    if (tool['type'] === 'namespace' && Array.isArray(tool['tools'])) return functionTools(tool['tools'] as Json[]);
    return [];
  });
}

/** The Responses request, read into the simulators' neutral shape. */
export function readResponsesRequest(body: Json): SimRequest {
  const input = typeof body['input'] === 'string' ? [{ role: 'user', content: body['input'] }] : ((body['input'] ?? []) as Json[]);
  const trailing: string[] = [];
  for (let i = input.length - 1; i >= 0 && input[i]?.['type'] === 'function_call_output'; i--) trailing.unshift(textOfContent(input[i]?.['output']));
  const last = input[input.length - 1];
  const format = ((body['text'] as Json | undefined)?.['format'] ?? null) as Json | null;
  const jsonSchema = format?.['type'] === 'json_schema' ? ((format['schema'] ?? {}) as Json) : format?.['type'] === 'json_object' ? {} : null;
  return {
    texts: [textOfContent(body['instructions']), ...input.map((item) => textOfContent(item['content']))],
    lastUserText: last?.['role'] === 'user' ? textOfContent(last['content']) : '',
    toolResults: trailing,
    tools: functionTools((body['tools'] ?? []) as Json[]),
    toolChoice: toolChoiceOf(body['tool_choice']),
    jsonSchema,
    maxTokens: typeof body['max_output_tokens'] === 'number' ? body['max_output_tokens'] : null,
    choices: 1,
  };
}

const newId = (prefix: string): string => `${prefix}${randomBytes(12).toString('hex')}`;

function outputItems(choice: SimChoice): Json[] {
  const items: Json[] = [];
  if (choice.pieces.length) {
    items.push({
      type: 'message',
      id: newId('msg_'),
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: choice.pieces.join(''), annotations: [], logprobs: [] }],
    });
  }
  for (const call of choice.toolCalls)
    items.push({ type: 'function_call', id: newId('fc_'), call_id: call.id, name: call.name, arguments: call.arguments, status: 'completed' });
  return items;
}

function responseObject(body: Json, id: string, plan: ReplyPlan, output: Json[], status: string): Json {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: body['instructions'] ?? null,
    model: body['model'],
    output,
    parallel_tool_calls: body['parallel_tool_calls'] ?? true,
    tool_choice: body['tool_choice'] ?? 'auto',
    tools: body['tools'] ?? [],
    text: body['text'] ?? { format: { type: 'text' } },
    metadata: {},
    usage:
      status === 'completed'
        ? {
            input_tokens: plan.promptTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: plan.completionTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: plan.promptTokens + plan.completionTokens,
          }
        : null,
  };
}

/** The events of one streamed response, numbered. */
function streamEvents(body: Json, plan: ReplyPlan): Json[] {
  const id = newId('resp_');
  const items = outputItems(plan.choices[0] as SimChoice);
  const events: Json[] = [
    { type: 'response.created', response: responseObject(body, id, plan, [], 'in_progress') },
    { type: 'response.in_progress', response: responseObject(body, id, plan, [], 'in_progress') },
  ];
  items.forEach((item, output_index) => {
    const item_id = item['id'];
    if (item['type'] === 'message') {
      const text = String(((item['content'] as Json[])[0] as Json)['text']);
      events.push(
        { type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } },
        {
          type: 'response.content_part.added',
          output_index,
          item_id,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        },
        { type: 'response.output_text.delta', output_index, item_id, content_index: 0, delta: text, logprobs: [] },
        { type: 'response.output_text.done', output_index, item_id, content_index: 0, text, logprobs: [] },
        { type: 'response.content_part.done', output_index, item_id, content_index: 0, part: { type: 'output_text', text, annotations: [], logprobs: [] } },
      );
    } else {
      const args = String(item['arguments']);
      events.push(
        { type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', arguments: '' } },
        { type: 'response.function_call_arguments.delta', output_index, item_id, delta: args },
        { type: 'response.function_call_arguments.done', output_index, item_id, name: item['name'], arguments: args },
      );
    }
    events.push({ type: 'response.output_item.done', output_index, item });
  });
  events.push({ type: 'response.completed', response: responseObject(body, id, plan, items, 'completed') });
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}

/** Answers a Responses request as the API would, streamed or whole, from `request` (the body read, perhaps scripted). */
export function answerResponses(res: ServerResponse, body: Json, request: SimRequest): void {
  const plan = planReply(request);
  if (body['stream'] === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of streamEvents(body, plan)) res.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
    return;
  }
  const text = JSON.stringify(responseObject(body, newId('resp_'), plan, outputItems(plan.choices[0] as SimChoice), 'completed'));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}
