import { GatewayError, type Call, type JsonObject } from '../../src/plugin-api.js';
import { mintId } from '../../src/toolkit/ids.js';
import { modelMemberProblem, type CallOutline, type IngressFormat } from '../../src/toolkit/ingress.js';
import { ledgerUsage, stateSealer, type Reply, type ReplyOutput, type TranslatedBody } from '../../src/toolkit/neutral.js';
import { estimateInputTokens } from '../../src/toolkit/token-estimate.js';
import { readMessagesRequest } from './read.js';
import { messageBody, type MessageEnvelope } from './render.js';
import { checkMessagesBody } from './schema.js';
import { MessagesStreamWriter } from './sink.js';
import { MESSAGES_WIRE, messagesErrors } from './wire.js';

/** The Messages format as an ingress: `POST /v1/messages` and `POST /v1/messages/count_tokens` (docs/formats/messages.md). */

const positiveInt = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined);

/** The first image block of checked messages, as `messages[i].content[j]` (or inside a tool result, `….content[k]`). */
function firstImage(messages: JsonObject[]): string | null {
  for (const [i, message] of messages.entries()) {
    const content = message['content'];
    if (!Array.isArray(content)) continue;
    for (const [j, block] of (content as JsonObject[]).entries()) {
      if (block['type'] === 'image') return `messages[${i}].content[${j}]`;
      const inner = block['type'] === 'tool_result' && Array.isArray(block['content']) ? (block['content'] as JsonObject[]) : [];
      const k = inner.findIndex((part) => part['type'] === 'image');
      if (k >= 0) return `messages[${i}].content[${j}].content[${k}]`;
    }
  }
  return null;
}

/** Read after the format's check, so the body's shape is known. */
function outline(call: Call): CallOutline {
  const body = call.body;
  const counting = call.endpoint.operation === 'count_tokens';
  const stream = !counting && body['stream'] === true;
  const tools = body['tools'];
  const format = (body['output_config'] as JsonObject | undefined)?.['format'];
  const limit = counting ? undefined : positiveInt(body['max_tokens']);
  return {
    model: body['model'] as string,
    stream,
    // The Messages stream always carries its usage.
    includeUsage: stream,
    // A count produces no output tokens.
    maxOutputTokens: counting ? 0 : (limit ?? null),
    maxOutputParam: limit === undefined ? null : 'max_tokens',
    choices: 1,
    asks: {
      tools: Array.isArray(tools) && tools.length ? 'tools' : null,
      json: format !== undefined && format !== null ? 'output_config.format' : null,
      image: firstImage(body['messages'] as JsonObject[]),
    },
  };
}

/** One call's reply as a Messages `message`, its stream, or its token count. */
export class MessagesOutput implements ReplyOutput {
  private readonly envelope: MessageEnvelope;
  private readonly family: string;

  constructor(private readonly call: Call) {
    const model = call.model;
    if (!model) throw new GatewayError(500, 'a reply was written before the model was resolved');
    this.envelope = { id: mintId('msg_'), model: model.id, seal: stateSealer(call) };
    this.family = model.family;
  }

  render(reply: Reply): TranslatedBody {
    const body = messageBody(reply, this.envelope, this.family);
    this.call.answerNotes?.reply(this.envelope.id, reply.choices.slice(0, 1), () => body['stop_reason'] as string);
    return { body: JSON.stringify(body), usage: ledgerUsage(reply.usage) };
  }

  sink(): MessagesStreamWriter {
    return new MessagesStreamWriter(this.envelope, estimateInputTokens(this.call.request), this.call.answerNotes);
  }

  /** `{"input_tokens": N}`; a count bills nothing. */
  count(inputTokens: number): TranslatedBody {
    return { body: JSON.stringify({ input_tokens: inputTokens }), usage: { promptTokens: 0, completionTokens: 0 } };
  }
}

export const messagesFormat: IngressFormat = {
  name: 'messages',
  wire: MESSAGES_WIRE,
  rateLimitHeaders: 'anthropic',
  errors: messagesErrors,
  check: (call) => modelMemberProblem(call.body) ?? checkMessagesBody(call.endpoint.operation, call.body),
  outline,
  read: readMessagesRequest,
  output: (call) => new MessagesOutput(call),
};
