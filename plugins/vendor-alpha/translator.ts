import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError, invalidRequest, type JsonObject, type ResolvedCall, type ModelEntry } from '../../src/plugin-api.js';
import { parseUpstreamJson } from '../../src/toolkit/json.js';
import { countAnswer, type ReplyOutput, type TranslatedBody } from '../../src/toolkit/neutral.js';
import { requestOnDeployment, type StreamTranslator, type Translator, type UpstreamRequest } from '../../src/toolkit/vendor.js';
import { alphaError } from './errors.js';
import { alphaRequest } from './request.js';
import { alphaReply } from './response.js';
import { AlphaStream } from './stream.js';

/** The alpha Messages API version this translator speaks. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** The headers of every alpha request: the gateway's own API version and credential. */
export function alphaHeaders(stream: boolean, apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
  };
  if (apiKey) headers['x-api-key'] = apiKey;
  return headers;
}

/** The members of a Messages request that alpha's `count_tokens` reads: the prompt (sampling, limits and streaming have no place in a count). */
const COUNTED = ['model', 'system', 'messages', 'tools', 'tool_choice', 'thinking'] as const;

const countedPart = (body: JsonObject): JsonObject => Object.fromEntries(COUNTED.filter((name) => body[name] !== undefined).map((name) => [name, body[name]]));

/** The neutral request and reply ⇄ alpha (an Anthropic-Messages-style API), for any ingress format. */
export class AlphaTranslator implements Translator {
  private readonly output: ReplyOutput;
  private readonly model: ModelEntry;
  private jsonMode = false;

  constructor(
    private readonly call: ResolvedCall,
    private readonly apiKey: string | undefined,
  ) {
    this.output = call.endpoint.format.output(call);
    this.model = call.model;
  }

  request(): UpstreamRequest {
    const operation = this.call.endpoint.operation;
    if (operation === 'embed') {
      throw invalidRequest(`The model '${this.model.id}' does not offer embeddings: the alpha family has no embedding model configured.`, 'model');
    }
    const { body, jsonTool } = alphaRequest(requestOnDeployment(this.call, this.call.request), this.model, this.call.stream, (param, action, refusal) =>
      this.call.adjust(param, action, refusal),
    );
    this.jsonMode = jsonTool;
    if (operation === 'count_tokens') {
      return { path: 'v1/messages/count_tokens', headers: alphaHeaders(false, this.apiKey), body: Buffer.from(JSON.stringify(countedPart(body))) };
    }
    return { path: 'v1/messages', headers: alphaHeaders(this.call.stream, this.apiKey), body: Buffer.from(JSON.stringify(body)) };
  }

  response(raw: Buffer): TranslatedBody {
    const message = parseUpstreamJson(raw.toString('utf8'), 'alpha', 'a response');
    if (this.call.endpoint.operation === 'count_tokens') {
      const counted = message['input_tokens'];
      if (typeof counted !== 'number') throw new GatewayError(502, 'The alpha upstream sent a token count without input_tokens.');
      return countAnswer(this.output, counted);
    }
    if (message['type'] !== 'message') throw new GatewayError(502, 'The alpha upstream sent a response that is not a message.');
    return this.output.render(alphaReply(message, this.jsonMode));
  }

  stream(): StreamTranslator {
    return new AlphaStream(this.output.sink(), this.jsonMode, this.apiKey);
  }

  error(status: number, headers: IncomingHttpHeaders, body: Buffer): GatewayError {
    return alphaError(status, headers, body, this.apiKey);
  }
}
