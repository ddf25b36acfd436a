/**
 * Reading the gateway's answers as a caller sees them: the error envelope, SSE frames, and
 * whether a reply is whole. Shared by the hardening suites.
 */

export interface Envelope {
  error: { message: string; type: string; code: string; param: string | null };
}

/** The contract's status table: envelope `type` → HTTP status. */
export const STATUS_OF_TYPE: Readonly<Record<string, number>> = {
  invalid_request: 400,
  invalid_api_key: 401,
  quota_exceeded: 402,
  model_not_allowed: 403,
  not_found: 404,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  upstream_error: 502,
  unavailable: 503,
  upstream_timeout: 504,
};

/** Exactly our envelope: four keys, strings where the contract says, `type` from the table matching `status`. */
export function isEnvelope(value: unknown, status?: number): value is Envelope {
  if (typeof value !== 'object' || value === null || Object.keys(value).join() !== 'error') return false;
  const error = (value as { error: unknown }).error;
  if (typeof error !== 'object' || error === null) return false;
  const fields = error as Record<string, unknown>;
  if (Object.keys(fields).sort().join() !== 'code,message,param,type') return false;
  if (typeof fields['message'] !== 'string' || typeof fields['type'] !== 'string' || typeof fields['code'] !== 'string') return false;
  if (fields['param'] !== null && typeof fields['param'] !== 'string') return false;
  const expected = STATUS_OF_TYPE[fields['type']];
  return expected !== undefined && (status === undefined || expected === status);
}

/** A JSON text parsed, or undefined. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export interface StreamReading {
  /** Each `data:` payload, in order, `[DONE]` excluded. */
  frames: string[];
  /** The body ended with `data: [DONE]` (and nothing after it). */
  done: boolean;
}

/** The data payloads of the gateway's SSE body (which always frames with `\n\n`). */
export function readStream(text: string): StreamReading {
  const events = text.split('\n\n').filter((event) => event !== '');
  const data = events.map((event) => event.replace(/^data: /, ''));
  const done = data.at(-1) === '[DONE]' && text.endsWith('data: [DONE]\n\n');
  return { frames: done ? data.slice(0, -1) : data, done };
}

export interface ChatReading {
  /** The text of choice 0, concatenated. */
  content: string;
  finishReason: string | null;
  /** An error envelope that ended the reply (a stream's last frame), if any. */
  error: Envelope | null;
  /** Whether every frame (or the body) was JSON of the expected shape. */
  wellFormed: boolean;
  /** A stream that ended with `data: [DONE]`, or a non-streamed 200. */
  looksWhole: boolean;
}

/** A chat reply, streamed or not, read the way a caller's client would. */
export function readChat(status: number, text: string, streamed: boolean): ChatReading {
  if (!streamed || status !== 200) {
    const body = parseJson(text) as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }> } | undefined;
    const choice = body?.choices?.[0];
    const content = choice?.message?.content;
    return {
      content: typeof content === 'string' ? content : '',
      finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
      error: isEnvelope(body) ? body : null,
      wellFormed: status === 200 ? typeof content === 'string' : isEnvelope(body, status),
      looksWhole: status === 200,
    };
  }
  const { frames, done } = readStream(text);
  const parsed = frames.map(parseJson);
  let content = '';
  let finishReason: string | null = null;
  for (const chunk of parsed as Array<{ choices?: Array<{ delta?: { content?: unknown }; finish_reason?: unknown }> } | undefined>) {
    const choice = chunk?.choices?.[0];
    if (typeof choice?.delta?.content === 'string') content += choice.delta.content;
    if (typeof choice?.finish_reason === 'string') finishReason = choice.finish_reason;
  }
  const last = parsed.at(-1);
  const error = !done && isEnvelope(last) ? last : null;
  const chunks = error ? parsed.slice(0, -1) : parsed;
  return {
    content,
    finishReason,
    error,
    wellFormed: chunks.every((chunk) => typeof chunk === 'object' && chunk !== null && !('error' in chunk)),
    looksWhole: done,
  };
}
