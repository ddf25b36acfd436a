import t from 'tap';
import { raw, startHarness } from '../helpers/harness.js';

/**
 * Gamma for chat callers, correct to the byte on the wire (docs/vendor-formats.md#gamma-request-rewrites):
 * through the real gateway and the gamma simulator, the request rewrites — an alias's model, the
 * usage a stream needs for the ledger — are made in the caller's bytes, and a reply under another
 * model name comes back with only that value changed. Numbers JSON.parse would round
 * (12345678901234567891, 1.10), spacing, escapes and every `"model"` that is not the top-level one
 * stay as they were sent.
 */

const request = (model: string, rest = ''): string =>
  '{ "messages": [ {"role":"user","content":"Order 7, \\"model\\": \\"gamma-5.2\\" \\u00e9"},\n' +
  '    {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\\"order_id\\":12345678901234567891}"}}]},\n' +
  '    {"role":"tool","tool_call_id":"call_1","content":"paid 1.10"} ],\n' +
  `  "model" : ${model} ,\n` +
  '  "temperature": 1.10, "seed": 12345678901234567891,\n' +
  '  "tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object","properties":{"model":{"type":"string"}}}}}]' +
  `${rest}\n}`;

const reply = (model: string): string =>
  `{"id":"chatcmpl-1","object":"chat.completion","created":1,  "model":${model},\n` +
  '"choices":[{"index":0,"message":{"role":"assistant","content":"12345678901234567891 at 1.10"},"finish_reason":"stop"}],' +
  '"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12},"note":{"model":"x","n":1.10}}';

t.test(
  "an alias, a stream without usage asked: the caller's bytes reach gamma with only those values changed; a reply under another name comes back with only its model changed",
  async (t) => {
    const h = await startHarness(t);
    const { key } = await h.createKey();
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };

    h.gamma.faults.push({ status: 200, rawBody: reply('"gamma-5.4-2026-03-05"'), contentType: 'application/json' });
    const answer = await raw(h.origin, 'POST', '/v1/chat/completions', { headers, body: request('"gamma-5-4"') });
    t.equal(answer.status, 200);
    t.equal(h.gamma.requests.at(-1)?.body, request('"gamma-5.4"'), 'the request: byte for byte but the model');
    t.equal(answer.text, reply('"gamma-5.4"'), 'the reply: byte for byte but the model');

    await raw(h.origin, 'POST', '/v1/chat/completions', { headers, body: request('"gamma-5.4"', ',\n  "stream": true') });
    t.equal(
      h.gamma.requests.at(-1)?.body,
      request('"gamma-5.4"', ',\n  "stream": true,"stream_options":{"include_usage":true}'),
      'a stream that asked no usage: stream_options added last, every other byte as sent',
    );

    await raw(h.origin, 'POST', '/v1/chat/completions', {
      headers,
      body: request('"gamma-5-4"', ',\n  "stream": true, "stream_options": { "include_usage" : false }'),
    });
    t.equal(
      h.gamma.requests.at(-1)?.body,
      request('"gamma-5.4"', ',\n  "stream": true, "stream_options": {"include_usage":true}'),
      'an alias and usage declined: both values written where they stood',
    );

    const twice = request('"gamma-5-4"').replace('{ "messages"', '{ "model": "gamma-5.2", "messages"');
    await raw(h.origin, 'POST', '/v1/chat/completions', { headers, body: twice });
    t.match(
      h.gamma.requests.at(-1)?.body,
      /^\{"model":"gamma-5\.4","messages":\[/,
      'a model standing twice: the body written from what the gateway read (the last), with one model',
    );
  },
);
