import { invalidRequest, type JsonObject } from '../../src/plugin-api.js';
import { refuseUnknownFields } from '../../src/toolkit/reference-format.js';

/**
 * Legacy `/v1/completions` for families without a native completions endpoint: the request
 * becomes a one-message chat request for the family's chat translator, and the reply is
 * rendered back as `text_completion` (see render.ts and stream.ts).
 */

/** Chat fields a legacy request carries over unchanged (the chat translation then maps or refuses each). */
const CARRIED = [
  'max_tokens',
  'temperature',
  'top_p',
  'n',
  'stop',
  'stream',
  'stream_options',
  'seed',
  'user',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
];

/** Legacy fields with no chat equivalent: refused (400 naming them) unless left at their neutral value. */
const NEUTRAL: Record<string, (value: unknown) => boolean> = {
  echo: (value) => value === false,
  suffix: (value) => value === '',
  best_of: (value) => value === 1,
  logprobs: (value) => value === 0,
};

/** Every legacy completions parameter: anything else would be dropped by the translation, so it is refused by name. */
const LEGACY_PARAMETERS = new Set(['model', 'prompt', ...CARRIED, ...Object.keys(NEUTRAL)]);

function promptText(prompt: unknown): string {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === 'string') return prompt[0];
  throw invalidRequest('prompt must be one string for this model (several prompts or token ids are not supported).', 'prompt');
}

export function chatBodyFromLegacy(body: JsonObject): JsonObject {
  refuseUnknownFields(body, LEGACY_PARAMETERS, 'a legacy completions parameter');
  for (const [field, neutral] of Object.entries(NEUTRAL)) {
    const value = body[field];
    if (value !== undefined && value !== null && !neutral(value)) throw invalidRequest(`${field} is not supported for this model.`, field);
  }
  const text = promptText(body['prompt']);
  if (text === '') throw invalidRequest('prompt must not be empty.', 'prompt');
  const chat: JsonObject = { model: body['model'], messages: [{ role: 'user', content: text }] };
  for (const field of CARRIED) if (body[field] !== undefined) chat[field] = body[field];
  return chat;
}
