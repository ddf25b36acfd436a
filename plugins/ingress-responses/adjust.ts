import type { Call, JsonObject } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';
import { inputItems } from './read.js';

/**
 * What a well-formed Responses request asks that the gateway honours only approximately, each
 * announced with `call.adjust` (or refused under `parameters: strict`), with the reason the
 * table gives (docs/formats/responses.md). Tools are adjusted where they are read (tools.ts).
 */

const sub = (body: JsonObject, field: string): JsonObject => {
  const value = body[field];
  return isObject(value) ? value : {};
};

const styledSummary = (value: unknown): value is string => value === 'concise' || value === 'detailed';

/** Announces each approximation of a checked body. */
export function adjustResponsesBody(call: Call): void {
  const body = call.body;
  if (body['truncation'] === 'auto') {
    call.adjust(
      'truncation',
      'disabled',
      'truncation is not supported here: the gateway never drops input items to fit a context window (truncation: disabled).',
    );
  }
  const verbosity = sub(body, 'text')['verbosity'];
  if (verbosity === 'low' || verbosity === 'high') {
    call.adjust(
      'text.verbosity',
      'default:medium',
      'text.verbosity is not supported here: no vendor translator maps a verbosity other than the default (medium).',
    );
  }
  const reasoning = sub(body, 'reasoning');
  for (const field of ['summary', 'generate_summary']) {
    if (styledSummary(reasoning[field])) {
      call.adjust(
        `reasoning.${field}`,
        'returned:auto',
        `reasoning.${field} is not supported here: reasoning the vendor shows is returned as it is (summary: auto).`,
      );
    }
  }
  inputItems(body['input']).forEach((item, i) => {
    if (!Array.isArray(item['content'])) return;
    (item['content'] as JsonObject[]).forEach((part, j) => {
      const detail = part['type'] === 'input_image' ? part['detail'] : undefined;
      if (detail === 'low' || detail === 'high' || detail === 'original') {
        const param = `input[${i}].content[${j}].detail`;
        call.adjust(param, 'sent:auto', `${param}: no vendor translator maps an image detail other than auto.`);
      }
    });
  });
}
