import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { startCaptureServer } from '../helpers/capture-server.js';
import { SIMULATED_TEXT } from '../helpers/client-gateway.js';
import { TEXT_ONLY, type ToolScript } from '../helpers/tool-script.js';

/**
 * The capture server behind test/fixtures/client-requests/ answers each format as the official
 * clients expect (whole and streamed, a scripted tool call, then text from its result) and
 * records every request with its credential redacted.
 */

t.test('the capture server answers every format and records what it was sent', async (t) => {
  let script: ToolScript | undefined = TEXT_ONLY;
  const server = await startCaptureServer(() => script);
  t.teardown(() => server.close());
  const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sl-secret-capture-key', maxRetries: 0 });
  const tools: OpenAI.Responses.Tool[] = [
    { type: 'function', name: 'run', parameters: { type: 'object', properties: { cmd: { type: 'string' } } }, strict: false },
  ];

  const whole = await openai.responses.create({ model: 'm', input: 'Say hello.', tools });
  t.equal(whole.output_text, SIMULATED_TEXT, 'Responses, whole: the text');
  const streamed = await openai.responses.stream({ model: 'm', input: 'Say hello.' }).finalResponse();
  t.equal(streamed.output_text, SIMULATED_TEXT, 'Responses, streamed: events the client assembles');

  script = { name: 'run', arguments: { cmd: 'echo hi' } };
  const call = await openai.responses.create({ model: 'm', input: 'Run it.', tools });
  const item = call.output[0];
  t.match(item, { type: 'function_call', name: 'run', arguments: '{"cmd":"echo hi"}' }, 'the scripted call');
  const after = await openai.responses.create({
    model: 'm',
    tools,
    input: [
      { role: 'user', content: 'Run it.' },
      item as OpenAI.Responses.ResponseFunctionToolCall,
      { type: 'function_call_output', call_id: (item as OpenAI.Responses.ResponseFunctionToolCall).call_id, output: 'hi' },
    ],
  });
  t.equal(after.output_text, 'Tool results: hi', 'then text from its result');

  const chat = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Say hello.' }] });
  t.equal(chat.choices[0]?.message.content, SIMULATED_TEXT, 'chat');
  const message = await new Anthropic({ baseURL: server.url, apiKey: 'sl-secret-capture-key', maxRetries: 0 }).messages.create({
    model: 'm',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Say hello.' }],
  });
  t.same(message.content, [{ type: 'text', text: SIMULATED_TEXT }], 'Messages');

  const captured = server.captured();
  t.same(
    captured.map((request) => request.path),
    ['/v1/responses', '/v1/responses', '/v1/responses', '/v1/responses', '/v1/chat/completions', '/v1/messages'],
    'every request recorded, in order',
  );
  t.notMatch(JSON.stringify(captured), 'sl-secret-capture-key', 'no credential recorded');
  for (const request of captured)
    t.ok(
      request.headers['authorization'] === '<redacted>' || request.headers['x-api-key'] === '<redacted>',
      `${request.path}: the credential header is kept, its value redacted`,
    );
  t.match(captured[0]?.body, { model: 'm', input: 'Say hello.' }, 'the body as sent');
});
