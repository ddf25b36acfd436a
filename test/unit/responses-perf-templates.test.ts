import t from 'tap';
import { inputItems } from '../../plugins/ingress-responses/read.js';
import { contentPart, contentPartJson, echoMembers, echoOf, messageItem, reasoningItem, type PartType } from '../../plugins/ingress-responses/response.js';
import { RESPONSES_PARAMETERS } from '../../plugins/ingress-responses/schema.js';
import { responsesFormat } from '../../plugins/ingress-responses/format.js';
import type { ResponsesStream } from '../../plugins/ingress-responses/stream.js';
import { turnOf } from '../../plugins/ingress-responses/turn.js';
import type { Reply } from '../../src/neutral/reply.js';
import { responsesCall } from '../helpers/responses-call.js';

/**
 * What the Responses writer writes as text templates instead of JSON.stringify (to save its
 * per-call cost, docs/performance.md) holds the bytes JSON.stringify would write: the echo of
 * the request's settings, content parts, the items a stream adds, and the stored items.
 */

type Json = Record<string, any>;

const TEXTS = ['', 'Hello', 'say "hi"\n\t', '\u2028\\/', '😀 é', '\ud800 lone', '</script>', '\u0000\u001f'];

t.test("the echo: the defaults' text when no echoed field is set, else the echo of the body", async (t) => {
  const echo = (body: Json): string => JSON.stringify(echoOf(body)).slice(1, -1);
  t.equal(echoMembers({ model: 'gamma-5.4', input: 'Hi' }), echo({}));
  // Every parameter the schema knows, set to values of every JSON type, and to null: a field echoOf reads but echoMembers overlooks would differ here.
  const values: unknown[] = [
    null,
    0,
    7,
    0.5,
    true,
    false,
    '',
    'x',
    [],
    [{ type: 'function', name: 'f' }],
    {},
    { effort: 'low', summary: 'auto', format: { type: 'json_object' }, verbosity: 'low', a: 'b' },
  ];
  for (const param of RESPONSES_PARAMETERS) {
    for (const value of values) {
      const body = { model: 'gamma-5.4', input: 'Hi', [param]: value };
      t.equal(echoMembers(body), echo(body), `${param}: ${JSON.stringify(value)}`);
    }
  }
});

t.test("a content part written from its text's JSON is JSON.stringify of the part", async (t) => {
  for (const type of ['output_text', 'refusal'] as PartType[]) {
    // Named by index: a raw U+2028 in a test's name would break the TAP stream.
    TEXTS.forEach((text, i) => t.equal(contentPartJson(type, JSON.stringify(text)), JSON.stringify(contentPart(type, text)), `${type}, text ${i}`));
  }
});

function sink(): ResponsesStream {
  return responsesFormat.output(responsesCall({ model: 'gamma-5.4', input: 'Hi', stream: true })).sink() as ResponsesStream;
}

/** The `data:` texts of a stream's events. */
const frames = (out: string): string[] =>
  out
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => frame.slice(frame.indexOf('\ndata: ') + 7));

const partOf = (part: Json): Json => contentPart(part['type'] as PartType, part['type'] === 'refusal' ? part['refusal'] : part['text']);

/** The event an item's or a part's opening or closing wrote, as JSON.stringify writes it from the objects response.ts builds. */
function expected(event: Json): string | null {
  const head = { type: event['type'], sequence_number: event['sequence_number'] };
  const at = { item_id: event['item_id'], output_index: event['output_index'], content_index: event['content_index'] };
  const item = event['item'] as Json | undefined;
  switch (event['type']) {
    case 'response.output_item.added':
      return JSON.stringify({
        ...head,
        output_index: event['output_index'],
        item:
          item?.['type'] === 'reasoning'
            ? { id: item['id'], type: 'reasoning', status: 'in_progress', summary: [] }
            : { id: item?.['id'], type: 'message', role: 'assistant', status: 'in_progress', content: [] },
      });
    case 'response.content_part.added':
      return JSON.stringify({ ...head, ...at, part: contentPart(event['part'].type, '') });
    case 'response.content_part.done':
      return JSON.stringify({ ...head, ...at, part: partOf(event['part']) });
    case 'response.output_item.done': {
      const whole =
        item?.['type'] === 'reasoning'
          ? reasoningItem(item['id'], item['summary'][0]?.text ?? '', null, item['status'])
          : messageItem(item?.['id'], item?.['content'].map(partOf), item?.['status']);
      if (item?.['type'] === 'reasoning' && item['encrypted_content'] !== undefined) whole['encrypted_content'] = item['encrypted_content'];
      return JSON.stringify({ ...head, output_index: event['output_index'], item: whole });
    }
    default:
      return null;
  }
}

t.test('every event a stream writes is JSON.stringify of its object', async (t) => {
  const s = sink();
  let out = s.start();
  for (const text of TEXTS) out += s.reasoning(0, text);
  out += s.reasoningState(0, { family: 'alpha', kind: 'signature', data: 'sig' });
  for (const text of TEXTS) out += s.text(0, text) + s.refusal(0, text);
  out += s.finish(0, 'length');
  s.close({ promptTokens: 1, completionTokens: 2 });
  out += s.done();
  const written = frames(out);
  const types = new Set<string>();
  for (const data of written) {
    const event = JSON.parse(data) as Json;
    t.equal(data, JSON.stringify(event), 'canonical JSON');
    const bytes = expected(event);
    if (bytes === null) continue;
    types.add(event['type']);
    t.equal(data, bytes, event['type']);
  }
  t.same(
    [...types].sort(),
    ['response.content_part.added', 'response.content_part.done', 'response.output_item.added', 'response.output_item.done'],
    'each templated event was seen',
  );
});

const REPLY: Reply = {
  choices: [{ content: 'Hello "there"\n😀', refusal: null, toolCalls: [], finish: 'stop' }],
  usage: { promptTokens: 3, completionTokens: 7 },
};

t.test('the stored items are JSON.stringify({ input, output }) of the input items and the output', async (t) => {
  const inputs: unknown[] = [
    'Hi \u2028 "quoted"',
    [
      { role: 'user', content: [{ type: 'input_text', text: 'é\n' }] },
      { type: 'message', role: 'developer', content: 'Be brief.' },
    ],
  ];
  for (const input of inputs) {
    const call = responsesCall({ model: 'gamma-5.4', input });
    const body = JSON.parse(String(responsesFormat.output(call).render(REPLY).body)) as Json;
    const items = turnOf(call).staged?.items ?? '';
    t.equal(items, JSON.stringify({ input: inputItems(input), output: body['output'] }), typeof input);
  }
  const unstored = responsesCall({ model: 'gamma-5.4', input: 'Hi', store: false });
  const body = JSON.parse(String(responsesFormat.output(unstored).render(REPLY).body)) as Json;
  t.match(body, { store: false, output: [{ content: [{ text: 'Hello "there"\n😀' }] }] });
  t.equal(turnOf(unstored).staged, null, 'store: false stages nothing');
});
