import { GoogleGenAI, type FunctionDeclaration } from '@google/genai';
import t from 'tap';
import { startHarness, type Harness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/** `@google/genai` pointed at the gateway with nothing but its base URL and an sl- key, on one model of each family (docs/formats/gemini.md). */

const MODELS = ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4'] as const;

const client = (h: Harness, key: string): GoogleGenAI => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: h.origin } });

const WEATHER: FunctionDeclaration = {
  name: 'get_weather',
  description: 'The weather in a city',
  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

t.test('generateContent, generateContentStream, function calling and countTokens on every family', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const ai = client(h, key);
  for (const model of MODELS) {
    const reply = await ai.models.generateContent({ model, contents: 'Hello there' });
    t.ok(reply.text && reply.text.length > 0, `${model}: text`);
    t.match(
      reply,
      {
        candidates: [{ finishReason: 'STOP', content: { role: 'model' } }],
        modelVersion: model,
        usageMetadata: { promptTokenCount: Number, totalTokenCount: Number },
      },
      `${model}: the reply`,
    );

    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Hello there' })) chunks.push(chunk);
    t.ok(chunks.length > 1, `${model}: streamed in chunks`);
    t.equal(chunks.at(-1)?.candidates?.[0]?.finishReason, 'STOP', `${model}: the last chunk finishes`);
    t.ok(chunks.map((chunk) => chunk.text ?? '').join('').length > 0, `${model}: streamed text`);
    t.type(chunks.at(-1)?.usageMetadata?.totalTokenCount, 'number', `${model}: usage on the last chunk`);

    const called = await ai.models.generateContent({ model, contents: 'Weather in Oslo?', config: { tools: [{ functionDeclarations: [WEATHER] }] } });
    const call = called.functionCalls?.[0];
    t.equal(call?.name, 'get_weather', `${model}: a function call`);
    const answered = await ai.models.generateContent({
      model,
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
        called.candidates?.[0]?.content ?? {},
        { role: 'user', parts: [{ functionResponse: { id: call?.id, name: 'get_weather', response: { output: '4 degrees' } } }] },
      ],
      config: { tools: [{ functionDeclarations: [WEATHER] }] },
    });
    t.ok(answered.text, `${model}: answered after the function response`);

    const counted = await ai.models.countTokens({ model, contents: 'Hello there' });
    t.ok((counted.totalTokens ?? 0) > 0, `${model}: countTokens`);
  }
});

t.test('a stream that breaks after its 200 ends with the bare error object, which the SDK raises', async (t) => {
  const h = await startHarness(t);
  const { key, id } = await h.createKey();
  const ai = client(h, key);
  for (const model of MODELS) {
    const texts: string[] = [];
    const error = await (async () => {
      for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Hello there [[sim:reset_after=5]]' })) texts.push(chunk.text ?? '');
    })().catch((e: unknown) => e);
    t.ok(texts.length > 0, `${model}: the chunks before the break arrived`);
    t.match(error, { status: 502 }, `${model}: the SDK raises the gateway's 502`);
  }
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  t.same(
    ledger.rows(id).map((row) => [row.status, row.outcome]),
    MODELS.map(() => [200, 'upstream_error']),
    'each a row of a call that failed after its 200, billed for what it produced',
  );
});
