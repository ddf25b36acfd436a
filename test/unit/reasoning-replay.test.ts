import t from 'tap';
import { AlphaTranslator } from '../../plugins/vendor-alpha/translator.js';
import { BetaTranslator } from '../../plugins/vendor-beta/translator.js';
import { createGammaTranslator } from '../../plugins/vendor-gamma/translator.js';
import { parseChatRequest } from '../../plugins/ingress-chat/read.js';
import { openForTest, sealed, shownSeal, unsealed } from '../helpers/reasoning-seal.js';
import type { UpstreamRequest } from '../../src/chain/translator.js';
import type { ReasoningState } from '../../src/neutral/request.js';
import { betaServices, neutralCall, newSignatures, upstreamJson } from '../helpers/neutral-call.js';
import { frames, makeCall, runStream } from '../helpers/translate.js';

/**
 * Reasoning read from each vendor into the chat format's reply and stream (reasoning_content,
 * thinking_blocks, reasoning_tokens), and handed back: a chat assistant message's thinking_blocks
 * become reasoning parts, replayed to the vendor that issued them — alpha's blocks unchanged and
 * in order before the turn's tool_use, beta's signature on the right part — and dropped for any
 * other. Literal fixtures throughout.
 */

type Json = Record<string, any>;
const ALPHA: ReasoningState = { family: 'alpha', kind: 'signature', data: 'EqQBCkYIBxgC' };
const REDACTED: ReasoningState = { family: 'alpha', kind: 'redacted', data: 'EmwKAhgBEgy3' };
const BETA: ReasoningState = { family: 'beta', kind: 'thought_signature', data: 'CpwBAdHt' };
const envelope = sealed;
const services = betaServices;

t.test('alpha: thinking and redacted blocks → reasoning_content, thinking_blocks, reasoning_tokens', async (t) => {
  const tr = new AlphaTranslator(makeCall({ messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'high' }, { model: 'alpha-sonnet-4.6' }), 'k');
  tr.request();
  const out = tr.response(
    Buffer.from(
      JSON.stringify({
        type: 'message',
        content: [
          { type: 'thinking', thinking: 'Weigh it.', signature: ALPHA.data },
          { type: 'redacted_thinking', data: REDACTED.data },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 40, output_tokens_details: { thinking_tokens: 25 } },
      }),
    ),
  );
  const body = JSON.parse(String(out.body)) as Json;
  t.same(
    unsealed(body['choices'][0].message),
    {
      role: 'assistant',
      content: 'Checking.',
      refusal: null,
      reasoning_content: 'Weigh it.',
      thinking_blocks: [
        { type: 'thinking', thinking: 'Weigh it.', signature: shownSeal(ALPHA) },
        { type: 'redacted_thinking', data: shownSeal(REDACTED) },
      ],
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    },
    'a run per block, each state in the envelope',
  );
  t.same(
    body['usage'],
    { prompt_tokens: 10, completion_tokens: 40, total_tokens: 50, completion_tokens_details: { reasoning_tokens: 25 } },
    'thinking is inside the output count',
  );
  t.same(out.usage, { promptTokens: 10, completionTokens: 40, reasoningTokens: 25 }, 'billed as output, the reasoning part of it counted');
});

const ALPHA_STREAM = [
  ['message_start', { type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Weigh ' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'it.' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: ALPHA.data } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: REDACTED.data } }],
  ['content_block_stop', { type: 'content_block_stop', index: 1 }],
  ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Done.' } }],
  [
    'message_delta',
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 30, output_tokens_details: { thinking_tokens: 20 } } },
  ],
  ['message_stop', { type: 'message_stop' }],
]
  .map(([event, data]) => `event: ${String(event)}\ndata: ${JSON.stringify(data)}\n\n`)
  .join('');

t.test('alpha stream: thinking_delta → reasoning_content, signature_delta and a redacted block → thinking_blocks', async (t) => {
  const tr = new AlphaTranslator(
    makeCall({ messages: [{ role: 'user', content: 'x' }] }, { model: 'alpha-sonnet-4.6', stream: true, includeUsage: true }),
    'k',
  );
  const chunks = frames(runStream(tr, ALPHA_STREAM)) as Json[];
  t.same(unsealed(chunks.map((c) => c['choices'][0]?.delta ?? c['usage'])), [
    { role: 'assistant', content: '' },
    { reasoning_content: 'Weigh ' },
    { reasoning_content: 'it.' },
    { thinking_blocks: [{ type: 'thinking', thinking: 'Weigh it.', signature: shownSeal(ALPHA) }] },
    { thinking_blocks: [{ type: 'redacted_thinking', data: shownSeal(REDACTED) }] },
    { content: 'Done.' },
    {},
    { prompt_tokens: 10, completion_tokens: 30, total_tokens: 40, completion_tokens_details: { reasoning_tokens: 20 } },
  ]);
});

t.test("beta: thoughts and a text part's signature; a stream's thought parts and signatures", async (t) => {
  const tr = new BetaTranslator(makeCall({ messages: [{ role: 'user', content: 'x' }] }, { model: 'beta-3-flash' }), services());
  await tr.request();
  const reply = JSON.parse(
    String(
      tr.response(
        Buffer.from(
          JSON.stringify({
            candidates: [
              {
                content: {
                  parts: [
                    { text: 'Ponder.', thought: true },
                    { text: 'Four.', thoughtSignature: BETA.data },
                  ],
                },
                finishReason: 'STOP',
                index: 0,
              },
            ],
            usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, thoughtsTokenCount: 6 },
          }),
        ),
      ).body,
    ),
  ) as Json;
  t.same(
    unsealed([reply['choices'][0].message.reasoning_content, reply['choices'][0].message.thinking_blocks, reply['usage']]),
    [
      'Ponder.',
      [{ type: 'thinking', thinking: 'Ponder.', signature: shownSeal(BETA) }],
      { prompt_tokens: 3, completion_tokens: 7, total_tokens: 10, completion_tokens_details: { reasoning_tokens: 6 } },
    ],
    "without calls, the last part's signature is the state; thoughts beside candidates in the output",
  );
  const unsigned = JSON.parse(
    String(
      tr.response(Buffer.from('{"candidates":[{"content":{"parts":[{"text":"Hm.","thought":true},{"text":"Yes."}]},"finishReason":"STOP","index":0}]}')).body,
    ),
  ) as Json;
  t.same(
    [unsigned['choices'][0].message.reasoning_content, unsigned['choices'][0].message.thinking_blocks],
    ['Hm.', undefined],
    'thoughts without a signature: text only',
  );

  const signatures = newSignatures();
  const streamCall = makeCall({ messages: [{ role: 'user', content: 'x' }] }, { model: 'beta-3-flash', stream: true });
  const stream = new BetaTranslator(streamCall, services(signatures));
  const sse = [
    '{"candidates":[{"content":{"parts":[{"text":"Pon","thought":true}]},"index":0}]}',
    '{"candidates":[{"content":{"parts":[{"text":"der.","thought":true}]},"index":0}]}',
    `{"candidates":[{"content":{"parts":[{"text":"Four.","thoughtSignature":"${BETA.data}"}]},"finishReason":"STOP","index":0}]}`,
  ]
    .map((data) => `data: ${data}\n\n`)
    .join('');
  t.same(
    (frames(runStream(stream, sse)) as Json[]).map((c) => c['choices'][0].delta),
    [{ role: 'assistant', content: '' }, { reasoning_content: 'Pon' }, { reasoning_content: 'der.' }, { content: 'Four.' }, {}],
    "a text part's signature after the text: nothing written after it",
  );
  await signatures.settled(streamCall);
  const next = new BetaTranslator(
    makeCall(
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: 'Four.' },
          { role: 'user', content: 'y' },
        ],
      },
      { model: 'beta-3-flash' },
    ),
    services(signatures),
  );
  t.same(
    (await upstreamJson(next.request()))['contents'],
    [
      { role: 'user', parts: [{ text: 'x' }] },
      { role: 'model', parts: [{ text: 'Four.', thoughtSignature: BETA.data }] },
      { role: 'user', parts: [{ text: 'y' }] },
    ],
    "kept by the gateway, and given back on the turn's last part",
  );
});

t.test('gamma: reasoning tokens of a translated reply', async (t) => {
  const tr = createGammaTranslator(neutralCall({ reasoning: { kind: 'effort', effort: 'low', param: 'reasoning.effort' } }, 'gamma-5.4'), 'k', null);
  const out = tr.response(
    Buffer.from(
      '{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":9,"total_tokens":11,"completion_tokens_details":{"reasoning_tokens":8}}}',
    ),
  );
  t.same((JSON.parse(String(out.body)) as Json)['usage'], {
    prompt_tokens: 2,
    completion_tokens: 9,
    total_tokens: 11,
    completion_tokens_details: { reasoning_tokens: 8 },
  });
  t.same(out.usage, { promptTokens: 2, completionTokens: 9, reasoningTokens: 8 });
});

/** A chat history whose assistant turn hands back reasoning of alpha, of beta and of a service the gateway does not know. */
const HISTORY = {
  tools: [{ type: 'function', function: { name: 'f' } }],
  messages: [
    { role: 'user', content: 'Go' },
    {
      role: 'assistant',
      content: 'Checking.',
      reasoning_content: 'Weigh it.',
      thinking_blocks: [
        { type: 'thinking', thinking: 'Weigh it.', signature: envelope(ALPHA) },
        { type: 'redacted_thinking', data: envelope(REDACTED) },
        { type: 'thinking', thinking: 'Sig.', signature: envelope(BETA) },
        { type: 'thinking', thinking: 'Raw.', signature: 'ErUBCkYICBgCIkB-someone-elses' },
      ],
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } },
        { id: 'call_2', type: 'function', function: { name: 'f', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'a' },
    { role: 'tool', tool_call_id: 'call_2', content: 'b' },
  ],
};

t.test('the chat format reads handed-back reasoning into the turn (unknown signatures dropped)', async (t) => {
  t.same(parseChatRequest(HISTORY, undefined, openForTest).turns[1]?.parts.slice(0, 4), [
    { type: 'reasoning', text: 'Weigh it.', state: { ...ALPHA, deployment: 'default' } },
    { type: 'reasoning', text: '', state: { ...REDACTED, deployment: 'default' } },
    { type: 'reasoning', text: 'Sig.', state: { ...BETA, deployment: 'default' } },
    { type: 'text', text: 'Checking.' },
  ]);
  t.same(
    parseChatRequest({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b', reasoning_content: 'Hm.' },
        { role: 'user', content: 'c' },
      ],
    }).turns[1]?.parts,
    [
      { type: 'reasoning', text: 'Hm.', state: null },
      { type: 'text', text: 'b' },
    ],
    'reasoning_content alone: a part without state',
  );
});

t.test('replayed to the vendor that issued it, dropped for any other', async (t) => {
  const alpha = JSON.parse(new AlphaTranslator(makeCall(HISTORY, { model: 'alpha-sonnet-4.6' }), 'k').request().body.toString()) as Json;
  t.same(
    alpha['messages'][1].content,
    [
      { type: 'thinking', thinking: 'Weigh it.', signature: ALPHA.data },
      { type: 'redacted_thinking', data: REDACTED.data },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'call_1', name: 'f', input: {} },
      { type: 'tool_use', id: 'call_2', name: 'f', input: {} },
    ],
    "alpha: its blocks unchanged and in order before the tool_use; beta's and unknown ones dropped",
  );

  const signatures = newSignatures();
  const earlier = makeCall(HISTORY, { model: 'beta-3-flash' });
  signatures.remember(earlier, 'call_1', 'REMEMBERED');
  signatures.remember(earlier, 'call_2', 'SECOND');
  await signatures.settled(earlier);
  const beta = (await upstreamJson(new BetaTranslator(makeCall(HISTORY, { model: 'beta-3-flash' }), services(signatures)).request())) as Json;
  t.same(
    beta['contents'][1].parts,
    [
      { text: 'Checking.' },
      { functionCall: { name: 'f', args: {}, id: 'call_1' }, thoughtSignature: BETA.data },
      { functionCall: { name: 'f', args: {}, id: 'call_2' }, thoughtSignature: 'SECOND' },
    ],
    "beta: the carried signature on the first call (before the remembered one), alpha's reasoning dropped",
  );
  const withoutState = (await upstreamJson(
    new BetaTranslator(
      makeCall({ ...HISTORY, messages: HISTORY.messages.map((m) => ({ ...m, thinking_blocks: undefined })) }, { model: 'beta-3-flash' }),
      services(signatures),
    ).request(),
  )) as Json;
  t.equal(
    withoutState['contents'][1].parts[1].thoughtSignature,
    'REMEMBERED',
    'without one, the remembered signature (chat callers that drop thinking_blocks)',
  );
  const textOnly = await new BetaTranslator(
    neutralCall(
      {
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'a' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: '', state: BETA },
              { type: 'text', text: 'b' },
              { type: 'text', text: 'c' },
            ],
          },
          { role: 'user', parts: [{ type: 'text', text: 'd' }] },
        ],
      },
      'beta-3-flash',
    ),
    services(),
  ).request();
  t.same(
    ((await upstreamJson(textOnly)) as Json)['contents'][1].parts,
    [{ text: 'b' }, { text: 'c', thoughtSignature: BETA.data }],
    'a turn without calls: on its last part',
  );
  const own = await new BetaTranslator(
    neutralCall(
      {
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'a' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: '', state: BETA },
              { type: 'tool_call', id: 'c1', name: 'f', args: {}, state: { ...BETA, data: 'OWN' } },
            ],
          },
          { role: 'user', parts: [{ type: 'tool_result', id: 'c1', name: 'f', content: 'r' }] },
        ],
      },
      'beta-3-flash',
    ),
    services(),
  ).request();
  t.equal(((await upstreamJson(own)) as Json)['contents'][1].parts[0].thoughtSignature, 'OWN', "a call's own state first");

  const passthrough = (await upstreamJson(
    createGammaTranslator(makeCall({ model: 'gamma-5.4', ...HISTORY }, { model: 'gamma-5.4' }), 'k', null).request(),
  )) as Json;
  t.same(Object.keys(passthrough['messages'][1]).sort(), ['content', 'role', 'tool_calls'], 'gamma (chat callers): the handed-back reasoning is left out');
  const untouched = makeCall({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }, { model: 'gamma-5.4' });
  t.equal(
    ((await createGammaTranslator(untouched, 'k', null).request()) as UpstreamRequest).body,
    untouched.rawJson,
    'and a body without any is sent byte for byte',
  );
  const translated = (await upstreamJson(
    createGammaTranslator(neutralCall(parseChatRequest(HISTORY, undefined, openForTest), 'gamma-5.4'), 'k', null).request(),
  )) as Json;
  t.same(
    translated['messages'][1],
    {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } },
        { id: 'call_2', type: 'function', function: { name: 'f', arguments: '{}' } },
      ],
    },
    'gamma (other formats): no reasoning replayed',
  );
});
