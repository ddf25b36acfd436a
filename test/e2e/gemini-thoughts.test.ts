import t from 'tap';
import { raw, startHarness, type Harness } from '../helpers/harness.js';
import { openedBy } from '../helpers/reasoning-seal.js';

/**
 * Thought parts and thought signatures through the Gemini format (docs/formats/gemini.md#thoughts):
 * beta's own signature comes back where Gemini puts it and goes up again unchanged; alpha's
 * thinking comes back as thought parts with its signature in the gateway's envelope and goes back
 * to alpha as its thinking block; Gemini CLI's placeholder reads as no state.
 */

type Json = Record<string, any>;

const TOOLS = [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }];

async function generate(h: Harness, key: string, model: string, body: Json, stream = false): Promise<Json> {
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  const res = await raw(h.origin, 'POST', `/v1beta/models/${model}:${method}`, {
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  if (!stream) return res.json() as Json;
  const chunks = res.text
    .split('\r\n\r\n')
    .filter(Boolean)
    .map((frame) => JSON.parse(frame.replace(/^data: /, '')) as Json);
  // The parts of every chunk, in order, as one candidate (what js-genai's callers join).
  return { candidates: [{ content: { role: 'model', parts: chunks.flatMap((chunk) => chunk.candidates[0].content.parts) } }], chunks };
}

const lastUpstream = (h: Harness, family: 'alpha' | 'beta'): Json => JSON.parse(h[family].requests.at(-1)?.body ?? '{}') as Json;

const ask = { role: 'user', parts: [{ text: 'Weather in Oslo?' }] };
const answer = (name: string, id?: string): Json => ({
  role: 'user',
  parts: [{ functionResponse: { name, ...(id ? { id } : {}), response: { output: '4 degrees' } } }],
});

t.test('beta: thought parts shown, its signature on the first call, sent back unchanged (whole and streamed)', async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  for (const stream of [false, true]) {
    const thinking = { thinkingConfig: { includeThoughts: true, thinkingLevel: 'LOW' } };
    const reply = await generate(h, key, 'beta-3-flash', { contents: [ask], tools: TOOLS, generationConfig: thinking }, stream);
    const parts = reply.candidates[0].content.parts as Json[];
    t.ok(
      parts.some((part) => part.thought === true && part.text.length > 0),
      `stream ${stream}: a thought part`,
    );
    const call = parts.find((part) => part.functionCall) ?? {};
    t.match(call, { functionCall: { name: 'get_weather' }, thoughtSignature: /^gw2\./ }, `stream ${stream}: beta's own signature on the call`);
    const upstreamAsked = lastUpstream(h, 'beta');
    t.equal(upstreamAsked.generationConfig.thinkingConfig.thinkingLevel, 'LOW', 'the level reaches beta');
    await generate(h, key, 'beta-3-flash', { contents: [ask, reply.candidates[0].content, answer('get_weather', call.functionCall.id)], tools: TOOLS });
    const sent = lastUpstream(h, 'beta').contents[1].parts as Json[];
    t.equal(
      sent.find((part) => part.functionCall)?.thoughtSignature,
      (await openedBy(h.store, keyId, call.thoughtSignature))?.data,
      `stream ${stream}: the signature goes back to beta on its call`,
    );
  }
});

t.test("Gemini CLI's placeholder on a call is no state: beta gets the signature the gateway kept", async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  const reply = await generate(h, key, 'beta-3-flash', { contents: [ask], tools: TOOLS });
  const content = reply.candidates[0].content as Json;
  const call = (content.parts as Json[]).find((part) => part.functionCall) as Json;
  const kept = (await openedBy(h.store, keyId, call.thoughtSignature))?.data;
  const replayed = { role: 'model', parts: [{ functionCall: call.functionCall, thoughtSignature: 'skip_thought_signature_validator' }] };
  await generate(h, key, 'beta-3-flash', { contents: [ask, replayed, answer('get_weather')], tools: TOOLS });
  const sent = lastUpstream(h, 'beta').contents[1].parts as Json[];
  t.equal(sent[0]?.thoughtSignature, kept, 'the signature kept for the call id');
});

t.test("alpha: its thinking as thought parts, its signature in the gateway's envelope, back to alpha as its thinking block", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const thinking = { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 }, maxOutputTokens: 4096 };
  const reply = await generate(h, key, 'alpha-sonnet-4.6', { contents: [ask], tools: TOOLS, generationConfig: thinking });
  const parts = reply.candidates[0].content.parts as Json[];
  const thought = parts.find((part) => part.thought === true);
  const call = parts.find((part) => part.functionCall);
  t.ok(thought?.text, 'a thought part');
  t.match(call, { thoughtSignature: /^gw2\./ }, "alpha's signature in the envelope, on the call");
  await generate(h, key, 'alpha-sonnet-4.6', {
    contents: [ask, reply.candidates[0].content, answer('get_weather', call?.functionCall.id)],
    tools: TOOLS,
    generationConfig: thinking,
  });
  const sent = lastUpstream(h, 'alpha').messages[1].content as Json[];
  t.match(sent[0], { type: 'thinking', thinking: thought?.text, signature: /./ }, 'the thinking block goes back to alpha');
  t.notMatch(sent[0]?.signature, /^gw2\./, "alpha's own signature, out of the envelope");
});
