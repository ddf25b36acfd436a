import type { Call, JsonObject } from '../../src/plugin-api.js';
import { firstPart, modelMemberProblem, positiveInt, type CallOutline, type IngressFormat } from '../../src/toolkit/ingress.js';
import { ledgerUsage, stateOpener, stateSealer, type Reply, type ReplyChoice, type ReplyOutput, type TranslatedBody } from '../../src/toolkit/neutral.js';
import { estimatedPrompt } from '../../src/toolkit/token-estimate.js';
import { adjustResponsesBody } from './adjust.js';
import { inputItems, readResponsesRequest } from './read.js';
import { endingOf, outputItems, responsesUsage } from './response.js';
import { checkResponsesBody } from './schema.js';
import { errorEvent } from './events.js';
import { ResponsesStream } from './stream.js';
import { turnOf, type ResponsesTurn } from './turn.js';

/** The Responses API as an ingress format (docs/formats/responses.md). */

function outline(call: Call): CallOutline {
  const body = call.body;
  // A count (POST /v1/responses/input_tokens) is answered whole and produces no output.
  const counting = call.endpoint.operation === 'count_tokens';
  const stream = !counting && body['stream'] === true;
  const tools = body['tools'];
  const format = ((body['text'] as JsonObject | null | undefined)?.['format'] as JsonObject | undefined)?.['type'];
  const maxOutputTokens = counting ? 0 : (positiveInt(body['max_output_tokens']) ?? null);
  return {
    model: body['model'] as string,
    stream,
    // The terminal event always carries the usage.
    includeUsage: stream,
    maxOutputTokens,
    maxOutputParam: maxOutputTokens === null || counting ? null : 'max_output_tokens',
    choices: 1,
    asks: {
      tools: Array.isArray(tools) && tools.length ? 'tools' : null,
      json: format === 'json_object' || format === 'json_schema' ? 'text.format' : null,
      image: firstPart(inputItems(body['input']), 'input', 'input_image'),
    },
  };
}

/** How one call's reply is written: the whole response object, or its stream of events. */
class ResponsesOutput implements ReplyOutput {
  private readonly turn: ResponsesTurn;
  private readonly parallelToolCalls: boolean;

  constructor(private readonly call: Call) {
    this.turn = turnOf(call);
    this.parallelToolCalls = call.body['parallel_tool_calls'] !== false;
  }

  render(reply: Reply): TranslatedBody {
    // Every vendor's reply has a choice; a Responses request asks for one.
    const choice = reply.choices[0] as ReplyChoice;
    const output = outputItems(choice, this.parallelToolCalls, this.turn.id, this.turn.tools().namespaced, stateSealer(this.call));
    // Written out, not spread (docs/performance.md#node-and-v8).
    const { status, incomplete_details } = endingOf(choice.finish);
    const body = this.turn.conclude({ status, incomplete_details, error: null, output, usage: responsesUsage(reply.usage) });
    // The format has no finish reason of its own: the conventions' (chat's) words for what its status says.
    this.call.answerNotes?.reply(this.turn.id, [choice], (answered) => answered.finish);
    return { body, usage: ledgerUsage(reply.usage) };
  }

  sink(): ResponsesStream {
    const { call } = this;
    return new ResponsesStream(this.turn, this.parallelToolCalls, () => estimatedPrompt(call), stateSealer(call), call.answerNotes);
  }

  /** `{"object": "response.input_tokens", "input_tokens": N}` (POST /v1/responses/input_tokens); a count bills nothing. */
  count(inputTokens: number): TranslatedBody {
    return { body: JSON.stringify({ object: 'response.input_tokens', input_tokens: inputTokens }), usage: { promptTokens: 0, completionTokens: 0 } };
  }
}

export const responsesFormat: IngressFormat = {
  name: 'responses',
  wire: 'openai-responses',
  rateLimitHeaders: 'openai',
  errors: { body: (error) => JSON.stringify(error.toEnvelope()), frame: (error) => errorEvent(error, 0) },
  check: (call) => {
    const problem = modelMemberProblem(call.body) ?? checkResponsesBody(call.body);
    if (problem) return problem;
    adjustResponsesBody(call);
    // The tools as offered: each one left out or offered otherwise is announced now, with the body's checks.
    turnOf(call).tools();
    return undefined;
  },
  outline,
  read: (call) => {
    const turn = turnOf(call);
    return readResponsesRequest(call.body, turn.history(), turn.input(), turn.tools(), turn.summaries, stateOpener(call));
  },
  output: (call) => new ResponsesOutput(call),
};
