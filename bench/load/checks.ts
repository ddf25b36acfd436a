import { CONTENT_CHUNKS, type CheckKind } from '../lib/workload.js';

/**
 * Is this answer (a 200's body) the right one? Every response of a measurement is checked;
 * a wrong one counts as an error, so a fast but broken target cannot win.
 */

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

function json(text: string): Record<string, any> | null {
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return null;
  }
}

const CHECKS: Record<CheckKind, (body: string) => boolean> = {
  // A chat completion that finished, with text.
  'reference-json': (body) => {
    const choice = json(body)?.['choices']?.[0];
    return choice?.finish_reason === 'stop' && typeof choice.message?.content === 'string' && choice.message.content.length > 0;
  },
  // Every content chunk, then `data: [DONE]` last.
  'reference-sse': (body) => body.endsWith('data: [DONE]\n\n') && occurrences(body, '"delta":{"content":') === CONTENT_CHUNKS,
  'alpha-json': (body) => {
    const message = json(body);
    return message?.['type'] === 'message' && message['stop_reason'] === 'end_turn' && typeof message['content']?.[0]?.text === 'string';
  },
  // A completed response whose message has text.
  'responses-json': (body) => {
    const response = json(body);
    const message = response?.['output']?.find((item: Record<string, any>) => item['type'] === 'message');
    return response?.['status'] === 'completed' && typeof message?.content?.[0]?.text === 'string' && message.content[0].text.length > 0;
  },
  // Every text delta, then response.completed last.
  'responses-sse': (body) =>
    /event: response\.completed\ndata: [^\n]*\n\n$/.test(body) && occurrences(body, '"type":"response.output_text.delta"') === CONTENT_CHUNKS,
  'alpha-sse': (body) => body.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n') && occurrences(body, '"type":"text_delta"') === CONTENT_CHUNKS,
};

export const checkBody = (kind: CheckKind, body: string): boolean => CHECKS[kind](body);
