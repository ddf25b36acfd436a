import t from 'tap';
import { raw, startHarness } from '../helpers/harness.js';

/**
 * Alpha for Messages callers, correct to the byte on the wire (docs/formats/messages.md#alpha):
 * through the real gateway and the alpha simulator, a body whose model is an alias reaches the
 * vendor with only that value changed, and the vendor's reply and stream reach the caller with
 * only their model changed — numbers JSON.parse would round (12345678901234567891, 1.10),
 * spacing, escapes and every `"model"` that is not the top-level one stay as they were sent.
 */

/** Every value a re-serialisation would change, and `"model"` where it must not be touched: in a string, a tool input, a schema. */
const request = (model: string): string =>
  '{ "max_tokens" :64,\n' +
  '  "messages": [ {"role":"user","content":"Order 7, \\"model\\": \\"alpha-opus-4.6\\" \\u00e9"},\n' +
  '    {"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"lookup","input":{"order_id":12345678901234567891,"price":1.10,"ratio":1E2,"model":"Alpha-Sonnet-4-6"}}]},\n' +
  '    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"paid"}]} ],\n' +
  `  "model" : ${model} ,\n` +
  '  "tools":[{"name":"lookup","description":"Find an order","input_schema":{"type":"object","properties":{"model":{"type":"string"}}}}]\n}';

/** The vendor's reply under its own model name, with the same kinds of bytes. */
const reply = (model: string): string =>
  `{"id":"msg_01","type":"message","role":"assistant",  "model":${model},\n` +
  '"content":[{"type":"tool_use","id":"toolu_02","name":"lookup","input":{"order_id":12345678901234567891,"price":1.10,"model":"claude-x"}}],' +
  '"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":7}}';

const start = (model: string): string =>
  'event: message_start\ndata: {"type":"message_start", "message":{"id":"msg_01","type":"message","role":"assistant","model":' +
  `${model},"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1},"note":{"model":"x","n":1.10}}}\n\n`;
const REST =
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"12345678901234567891"}}\n\n' +
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1.0}}\n\n' +
  'event: message_stop\ndata: {"type":"message_stop"}\n\n';

t.test("an alias: the caller's bytes reach alpha with only the top-level model changed; the reply and the stream come back with only theirs", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const headers = { 'content-type': 'application/json', 'x-api-key': key };

  h.alpha.faults.push({ status: 200, rawBody: reply('"claude-sonnet-4-6-20260101"'), contentType: 'application/json' });
  const answer = await raw(h.origin, 'POST', '/v1/messages', { headers, body: request('"Alpha-Sonnet-4-6"') });
  t.equal(answer.status, 200);
  t.equal(h.alpha.requests.at(-1)?.body, request('"alpha-sonnet-4.6"'), 'the request: byte for byte but the model');
  t.equal(answer.text, reply('"alpha-sonnet-4.6"'), 'the reply: byte for byte but the model');

  const streamed = request('"Alpha-Sonnet-4-6"').replace('"max_tokens" :64', '"max_tokens" :64, "stream":true');
  h.alpha.faults.push({ status: 200, rawBody: start('"claude-sonnet-4-6-20260101"') + REST, contentType: 'text/event-stream' });
  const stream = await raw(h.origin, 'POST', '/v1/messages', { headers, body: streamed });
  t.equal(h.alpha.requests.at(-1)?.body, streamed.replace('"Alpha-Sonnet-4-6" ,', '"alpha-sonnet-4.6" ,'), 'a streamed request likewise');
  t.equal(stream.text, start('"alpha-sonnet-4.6"') + REST, 'the stream: every frame byte for byte, message_start but its model');
});
