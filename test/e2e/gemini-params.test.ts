import t from 'tap';
import { raw, startHarness, type Harness } from '../helpers/harness.js';
import { PNG_BASE64 } from '../helpers/image-server.js';
import { adjustedAsSaid, categoryOf, fieldAt, tableCells, type Family } from '../helpers/param-table.js';

/**
 * docs/formats/gemini.md's parameter table, held to the code through the real gateway, row by row
 * and family by family: refused → 400 naming the parameter, no upstream request; accepted, no
 * effect → the same upstream request as without it; mapped → the named upstream field differs
 * from the request without it (`url`: the upstream path); adjusted → answered with the cell's
 * `x-gateway-adjusted` entry and the upstream request the `without` body makes, and refused under
 * `parameters: strict`.
 */

type Body = Record<string, unknown>;

interface Sample {
  /** The body with the parameter. */
  with: Body;
  /** The body without it (default: the plain request); null: the mapped field is only checked to be there. */
  without?: Body | null;
  /** The model in the path, when not the family's own (`{model}` replaced). */
  path?: (model: string) => string;
  /** The field a refusal names, when not the row's own name; for an adjusted row, the parameter its entry names. */
  param?: string;
}

const MODELS: Record<Family, string> = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' };
const user = (...parts: Body[]): Body => ({ role: 'user', parts });
const base = (extra: Body = {}): Body => ({ contents: [user({ text: 'Hi' })], ...extra });
const config = (generationConfig: Body, extra: Body = {}): Body => base({ generationConfig, ...extra });
const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const DECLARATION = { name: 'get_weather', description: 'Weather', parametersJsonSchema: SCHEMA };
const TOOLS = [{ functionDeclarations: [DECLARATION] }];
const withTools = (extra: Body = {}): Body => base({ tools: TOOLS, ...extra });
const calling = (functionCallingConfig: Body): Body => withTools({ toolConfig: { functionCallingConfig } });
const modelTurn = (part: Body): Body[] => [
  user({ text: 'Weather?' }),
  { role: 'model', parts: [part] },
  user({ functionResponse: { name: 'get_weather', response: { output: '4 degrees' } } }),
];
const CALL = { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } };
const textTurns = (part: Body): Body[] => [user({ text: 'Hi' }), { role: 'model', parts: [part] }, user({ text: 'More' })];

const SAMPLES: Record<string, Sample> = {
  '`{model}` (the path)': { with: base(), path: (model) => model.toUpperCase(), without: null },
  '`contents` (text parts)': { with: base(), without: base({ contents: [user({ text: 'Hello' })] }) },
  '`systemInstruction`': { with: base({ systemInstruction: { parts: [{ text: 'Be brief.' }] } }) },
  '`inlineData` parts (images)': {
    with: base({ contents: [user({ text: 'Look' }, { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } })] }),
    without: base({ contents: [user({ text: 'Look' })] }),
  },
  '`fileData` parts': {
    with: base({ contents: [user({ fileData: { mimeType: 'image/png', fileUri: 'https://example.com/x.png' } })] }),
    param: 'contents[0].parts[0].fileData',
  },
  '`functionCall`, `functionResponse` parts': {
    with: withTools({ contents: modelTurn(CALL) }),
    without: withTools({ contents: [user({ text: 'Weather?' })] }),
  },
  "`thoughtSignature` (beta's own)": {
    with: base({ contents: textTurns({ text: 'Hello.', thoughtSignature: 'CpwBAdHt' }) }),
    without: base({ contents: textTurns({ text: 'Hello.' }) }),
  },
  '`thoughtSignature: "skip_thought_signature_validator"` (Gemini CLI\'s)': {
    with: withTools({ contents: modelTurn({ ...CALL, thoughtSignature: 'skip_thought_signature_validator' }) }),
    without: withTools({ contents: modelTurn(CALL) }),
  },
  '`thought` parts': {
    with: base({
      contents: [user({ text: 'Hi' }), { role: 'model', parts: [{ text: 'Thinking.', thought: true }, { text: 'Hello.' }] }, user({ text: 'More' })],
    }),
    without: base({ contents: textTurns({ text: 'Hello.' }) }),
  },
  '`tools[].functionDeclarations` (`parametersJsonSchema`)': { with: withTools() },
  '`functionDeclarations[].parameters` (the OpenAPI schema)': {
    with: base({
      tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true } } } }] }],
    }),
  },
  'hosted tools (`googleSearch`, `urlContext`, `codeExecution`, …)': {
    with: base({ tools: [...TOOLS, { googleSearch: {} }] }),
    without: withTools(),
    param: 'tools[1]',
  },
  '`toolConfig.functionCallingConfig.mode` (`AUTO`, `ANY`, `NONE`)': { with: calling({ mode: 'ANY' }), without: withTools() },
  '`toolConfig.functionCallingConfig.allowedFunctionNames`': {
    with: calling({ mode: 'ANY', allowedFunctionNames: ['get_weather'] }),
    without: calling({ mode: 'ANY' }),
  },
  '`toolConfig.functionCallingConfig.mode` `VALIDATED`': { with: calling({ mode: 'VALIDATED' }), without: calling({ mode: 'AUTO' }) },
  '`generationConfig.maxOutputTokens`': { with: config({ maxOutputTokens: 64 }), without: config({ maxOutputTokens: 32 }) },
  "`generationConfig.maxOutputTokens` above the model's `max_output_tokens`": {
    with: config({ maxOutputTokens: 1_000_000 }),
    without: null,
    param: 'generationConfig.maxOutputTokens',
  },
  '`generationConfig.temperature`': { with: config({ temperature: 0.2 }) },
  '`generationConfig.topP`': { with: config({ topP: 0.5 }) },
  '`generationConfig.topK`': { with: config({ topK: 20 }), param: 'generationConfig.topK' },
  '`generationConfig.stopSequences`': { with: config({ stopSequences: ['END'] }) },
  '`generationConfig.seed`': { with: config({ seed: 7 }) },
  '`generationConfig.presencePenalty`': { with: config({ presencePenalty: 0.5 }) },
  '`generationConfig.frequencyPenalty`': { with: config({ frequencyPenalty: 0.5 }) },
  '`generationConfig.candidateCount` of 1': { with: config({ candidateCount: 1 }) },
  '`generationConfig.candidateCount` above 1': { with: config({ candidateCount: 2 }) },
  '`generationConfig.responseMimeType` `application/json` (no schema)': { with: config({ responseMimeType: 'application/json' }) },
  '`generationConfig.responseMimeType` `text/plain`': { with: config({ responseMimeType: 'text/plain' }) },
  '`generationConfig.responseJsonSchema`': { with: config({ responseMimeType: 'application/json', responseJsonSchema: SCHEMA }) },
  '`generationConfig.responseSchema` (the OpenAPI schema)': {
    with: config({ responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] } }),
  },
  '`generationConfig.responseModalities` `["TEXT"]`': { with: config({ responseModalities: ['TEXT'] }) },
  '`generationConfig.responseModalities` with another modality': { with: config({ responseModalities: ['TEXT', 'IMAGE'] }) },
  '`generationConfig.thinkingConfig.thinkingBudget`': {
    with: config({ maxOutputTokens: 8192, thinkingConfig: { thinkingBudget: 2048 } }),
    without: config({ maxOutputTokens: 8192 }),
  },
  '`generationConfig.thinkingConfig.thinkingLevel`': { with: config({ thinkingConfig: { thinkingLevel: 'LOW' } }) },
  '`generationConfig.thinkingConfig.includeThoughts`': {
    with: config({ maxOutputTokens: 8192, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } }),
    without: config({ maxOutputTokens: 8192, thinkingConfig: { thinkingBudget: 2048 } }),
  },
  '`safetySettings`': { with: base({ safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] }), param: 'safetySettings' },
  '`cachedContent`': { with: base({ cachedContent: 'cachedContents/abc' }) },
  '`labels`': { with: base({ labels: { team: 'a' } }) },
  'snake_case names (`system_instruction`, `generation_config`, `function_declarations`, …)': {
    with: base({ system_instruction: { parts: [{ text: 'Be brief.' }] } }),
  },
  'every other member of a content, a part, a declaration, `toolConfig`, `generationConfig` or `thinkingConfig` (`videoMetadata`, `behavior`, `retrievalConfig`, …)':
    { with: base({ contents: [user({ text: 'Hi', videoMetadata: {} })] }), param: 'contents[0].parts[0].videoMetadata' },
};

interface Sent {
  status: number;
  param: string | null;
  adjusted: string | null;
  /** What reached the family's upstream (`url` and the body), or null when nothing did. */
  upstream: Body | null;
}

async function send(h: Harness, key: string, family: Family, sample: Sample, body: Body): Promise<Sent> {
  const sim = h[family];
  const before = sim.requests.length;
  const model = sample.path ? sample.path(MODELS[family]) : MODELS[family];
  const res = await raw(h.origin, 'POST', `/v1beta/models/${model}:generateContent`, {
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const seen = sim.requests.length > before ? sim.requests.at(-1) : undefined;
  const details = res.status === 200 ? [] : ((res.json() as { error: { details: Array<{ metadata?: { param?: string } }> } }).error.details ?? []);
  return {
    status: res.status,
    param: details[0]?.metadata?.param ?? null,
    adjusted: res.headers.get('x-gateway-adjusted'),
    upstream: seen ? { url: seen.path, ...(JSON.parse(seen.body) as Body) } : null,
  };
}

const FAMILIES: readonly Family[] = ['alpha', 'beta', 'gamma'];

t.test('the parameter table is what the code does, for every family', async (t) => {
  const rows = tableCells('docs/formats/gemini.md', 'gemini-params')
    .slice(1)
    .map(([key = '', alpha = '', beta = '', gamma = '']) => ({ key, cells: { alpha, beta, gamma } }));
  t.same(rows.map((row) => row.key).sort(), Object.keys(SAMPLES).sort(), 'a sample for every row, a row for every sample');
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const strict = await startHarness(t, { env: { GATEWAY_PARAMETERS: 'strict' } });
  const { key: strictKey } = await strict.createKey();
  for (const row of rows) {
    const sample = SAMPLES[row.key] as Sample;
    for (const family of FAMILIES) {
      const cell = row.cells[family];
      const what = `${row.key} × ${family}: ${cell}`;
      const category = categoryOf(cell);
      const sent = await send(h, key, family, sample, sample.with);
      if (category === 'refused') {
        t.same([sent.status, sent.param, sent.upstream], [400, sample.param ?? /`([^`]+)`/.exec(row.key)?.[1], null], what);
        continue;
      }
      const without = sample.without === null ? null : await send(h, key, family, { with: base() }, sample.without ?? base());
      if (category === 'adjusted') {
        adjustedAsSaid(t, what, sent, sample.param ?? '', cell);
        if (without) t.same(sent.upstream, without.upstream, `${what}: the upstream request is the one the cell says`);
        const refused = await send(strict, strictKey, family, sample, sample.with);
        t.same([refused.status, refused.param, refused.upstream], [400, sample.param, null], `${what}: refused under parameters: strict`);
        continue;
      }
      t.equal(sent.status, 200, `${what}: answered`);
      if (category === 'accepted, no effect') {
        t.same(sent.upstream, without?.upstream, what);
        continue;
      }
      const field = /^mapped: `([^`]+)`/.exec(cell)?.[1];
      if (field === undefined) {
        t.fail(`${what}: not one of the table's answers`);
        continue;
      }
      t.not(fieldAt(sent.upstream, field), undefined, `${what}: the field is sent`);
      if (without) t.notSame(fieldAt(sent.upstream, field), fieldAt(without.upstream, field), `${what}: the parameter changes it`);
    }
  }
});
