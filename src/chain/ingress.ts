import { GatewayError } from '../http/errors.js';
import type { Reply } from '../neutral/reply.js';
import type { NeutralRequest } from '../neutral/request.js';
import type { ReplySink } from '../neutral/sink.js';
import type { Call, JsonObject } from './call.js';
import type { TranslatedBody } from './translator.js';

/**
 * An ingress format: a way callers speak to the gateway (the reference chat format, the
 * Responses API, the Messages format). Each is a plugin of its own that maps its request to
 * the one neutral request the chain and the vendor translators use, and maps the neutral reply
 * and stream events back. Adding an ingress touches no vendor translator; adding a vendor
 * touches no ingress.
 */
export interface IngressFormat {
  /** `chat`, `responses`, `messages`. */
  readonly name: string;
  /**
   * The wire format it speaks (`openai-chat`, `anthropic-messages`, `openai-responses`): a
   * vendor whose upstream speaks the same may pass the caller's body through nearly unchanged.
   */
  readonly wire: string;
  /** How the gateway's errors look in this format (refusals, failures before any byte). */
  readonly errors: ErrorFormat;
  /**
   * The rate-limit headers its answers carry for a key with a rate cap, in the vendor's dialect
   * the format's clients know (docs/api-contract.md#rate-limit-headers): OpenAI's `x-ratelimit-*-requests`
   * or Anthropic's `anthropic-ratelimit-requests-*`; absent, none (the Gemini format: Google
   * sends none, and its clients read none).
   */
  readonly rateLimitHeaders?: 'openai' | 'anthropic';
  /**
   * The first problem with a body in this format (400 naming the field in its notation), if any;
   * the model it names is checked first. The core asks once the body is read, before any
   * `onRequest` hook: a format's body rules live with its format, nowhere else.
   */
  check(call: Call): RequestProblem | undefined;
  /** What the gatekeepers read from a checked body without translating it. */
  outline(call: Call): CallOutline;
  /** The body read into the neutral request (once per call: see `Call.request`); a 400 for what cannot be. */
  read(call: Call): NeutralRequest;
  /** How this call's reply is written for its caller. */
  output(call: Call): ReplyOutput;
}

export interface RequestProblem {
  /** The field at fault in the format's notation, e.g. `messages[0].role`. */
  param: string;
  message: string;
}

/** The problem with the `model` member of a body, for the formats that name the model there: required, a non-empty string. */
export function modelMemberProblem(body: JsonObject): RequestProblem | undefined {
  const model = body['model'];
  if (typeof model === 'string' && model.trim() !== '') return undefined;
  const message = model === undefined ? 'model is required.' : 'model must be a non-empty string naming a model of GET /v1/models.';
  return { param: 'model', message };
}

/** How the gateway's own errors are written in a format. */
export interface ErrorFormat {
  /** The JSON body of an error answered before any byte of a reply. */
  body(error: GatewayError): string;
  /** The SSE text that ends a stream which fails after its 200 and before its first event (no sink yet). */
  frame(error: GatewayError): string;
}

/** The parts of a request every gatekeeper reads, whatever the format. */
export interface CallOutline {
  /** The model as the caller named it, before it is resolved to a catalogue entry. */
  model: string;
  /** Whether the caller asked for a streamed reply. */
  stream: boolean;
  /** Whether the caller asked for the usage in the stream (the chat format asks with `stream_options`; the others always carry it). */
  includeUsage: boolean;
  /** The caller's own limit on output tokens, per completion (null: the model's maximum). */
  maxOutputTokens: number | null;
  /** The parameter that set `maxOutputTokens` (`max_tokens`, `max_completion_tokens`, `max_output_tokens`), named in a 400; null when none did. */
  maxOutputParam: string | null;
  /** Completions generated (and billed) per request: `n` (or the legacy `best_of`) per prompt, times the prompts of a legacy `prompt` list. */
  choices: number;
  /** Capabilities asked for, each as the parameter that asks (named in a 400), or null. */
  asks: { tools: string | null; json: string | null; image: string | null };
}

/** How one call's reply is written for its caller. */
export interface ReplyOutput {
  /** A whole neutral reply → the caller's body, with the usage the ledger bills. */
  render(reply: Reply): TranslatedBody;
  /** The sink of a streamed reply's neutral events. */
  sink(): ReplyStream;
  /** A count of the request's input tokens → the caller's body (only formats with a `count_tokens` endpoint have one). */
  count?(inputTokens: number): TranslatedBody;
}

/** A vendor's (or the gateway's estimated) input-token count, written in the caller's format. */
export function countAnswer(output: ReplyOutput, inputTokens: number): TranslatedBody {
  if (!output.count) throw new GatewayError(500, 'A token count was asked of a format that cannot write one.');
  return output.count(inputTokens);
}

/** A sink that also writes the stream's last frames: after completion, or on failure. */
export interface ReplyStream extends ReplySink {
  /** The frame written after the completion hooks (the ledger row is committed before the last byte). */
  done(): string;
  /** The frames that end a stream which broke after its 200. */
  fail(error: GatewayError): string;
}
