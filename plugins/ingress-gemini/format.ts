import { GatewayError, type Call, type JsonObject } from '../../src/plugin-api.js';
import { mintId } from '../../src/toolkit/ids.js';
import { positiveInt, type CallOutline, type IngressFormat, type RequestProblem } from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';
import { ledgerUsage, stateSealer, type Reply, type ReplyOutput, type TranslatedBody } from '../../src/toolkit/neutral.js';
import { estimateInputTokens } from '../../src/toolkit/token-estimate.js';
import { geminiBody } from './body.js';
import { readGeminiRequest } from './read.js';
import { geminiReply, type GeminiEnvelope } from './render.js';
import { checkGeminiBody } from './schema.js';
import { GeminiStreamWriter } from './stream.js';
import { GEMINI_WIRE, geminiErrors } from './wire.js';

/**
 * The Gemini format as an ingress: `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent?alt=sse` and `:countTokens` (docs/formats/gemini.md). The model is the
 * one the path names, not a body member.
 */

/** `/v1beta/models/{model}:method` → the model, as the caller named it (percent-decoded). */
const MODEL_IN_PATH = /^\/[^/]+\/models\/([^/:]+):/;

export function pathModel(call: Call): string {
  const path = call.req.url ?? '';
  const raw = MODEL_IN_PATH.exec(path)?.[1] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Whether the call asks for a stream: the stream method (which answers SSE only, `?alt=sse`). */
const streams = (call: Call): boolean => call.endpoint.name === 'gemini.stream_generate_content';

/** The stream method without `alt=sse` would be answered as one JSON array by Google: refused, naming `alt`. */
function streamProblem(call: Call): RequestProblem | undefined {
  if (!streams(call)) return undefined;
  const query = call.req.url?.split('?')[1] ?? '';
  if (new URLSearchParams(query).get('alt') === 'sse') return undefined;
  return { param: 'alt', message: 'streamGenerateContent is answered as server-sent events only: add ?alt=sse to the URL.' };
}

/** The first image part of checked contents, as `contents[i].parts[j].inlineData`. */
function firstImage(contents: unknown): string | null {
  if (!Array.isArray(contents)) return null;
  for (const [i, content] of (contents as JsonObject[]).entries()) {
    const parts = Array.isArray(content['parts']) ? (content['parts'] as JsonObject[]) : [];
    const j = parts.findIndex((part) => isObject(part['inlineData']));
    if (j >= 0) return `contents[${i}].parts[${j}].inlineData`;
  }
  return null;
}

const hasDeclarations = (tools: unknown): boolean =>
  Array.isArray(tools) && (tools as JsonObject[]).some((tool) => Array.isArray(tool['functionDeclarations']) && tool['functionDeclarations'].length > 0);

function outline(call: Call): CallOutline {
  const body = geminiBody(call);
  const counting = call.endpoint.operation === 'count_tokens';
  const stream = !counting && streams(call);
  const config = isObject(body['generationConfig']) ? body['generationConfig'] : {};
  const limit = counting ? undefined : positiveInt(config['maxOutputTokens']);
  return {
    model: pathModel(call),
    stream,
    // The Gemini stream always carries its usage.
    includeUsage: stream,
    maxOutputTokens: counting ? 0 : (limit ?? null),
    maxOutputParam: limit === undefined ? null : 'generationConfig.maxOutputTokens',
    choices: 1,
    asks: {
      tools: hasDeclarations(body['tools']) ? 'tools' : null,
      json: config['responseMimeType'] === 'application/json' ? 'generationConfig.responseMimeType' : null,
      image: firstImage(body['contents']),
    },
  };
}

/** One call's reply as a `GenerateContentResponse`, its stream, or its token count. */
export class GeminiOutput implements ReplyOutput {
  private readonly envelope: GeminiEnvelope;

  constructor(private readonly call: Call) {
    const model = call.model;
    if (!model) throw new GatewayError(500, 'a reply was written before the model was resolved');
    const config = geminiBody(call)['generationConfig'];
    const thinking = isObject(config) ? config['thinkingConfig'] : undefined;
    this.envelope = {
      responseId: mintId(''),
      modelVersion: model.id,
      thoughts: isObject(thinking) && thinking['includeThoughts'] === true,
      family: model.family,
      seal: stateSealer(call),
    };
  }

  render(reply: Reply): TranslatedBody {
    const body = geminiReply(reply, this.envelope);
    this.call.answerNotes?.reply(
      this.envelope.responseId,
      reply.choices.slice(0, 1),
      () => (body['candidates'] as JsonObject[])[0]?.['finishReason'] as string,
    );
    return { body: JSON.stringify(body), usage: ledgerUsage(reply.usage) };
  }

  sink(): GeminiStreamWriter {
    return new GeminiStreamWriter(this.envelope, estimateInputTokens(this.call.request), this.call.answerNotes);
  }

  /** `{"totalTokens": N}`; a count bills nothing. */
  count(inputTokens: number): TranslatedBody {
    return { body: JSON.stringify({ totalTokens: inputTokens }), usage: { promptTokens: 0, completionTokens: 0 } };
  }
}

export const geminiFormat: IngressFormat = {
  name: 'gemini',
  wire: GEMINI_WIRE,
  errors: geminiErrors,
  check: (call) => streamProblem(call) ?? checkGeminiBody(call.endpoint.operation, geminiBody(call)),
  outline,
  read: readGeminiRequest,
  output: (call) => new GeminiOutput(call),
};
