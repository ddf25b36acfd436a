import t from 'tap';
import { alphaRequestBody } from '../../plugins/vendor-alpha/request.js';
import { JSON_TOOL } from '../../plugins/vendor-alpha/structured.js';
import { betaRequestBody } from '../../plugins/vendor-beta/request.js';
import { gammaChatBody } from '../../plugins/vendor-gamma/request.js';
import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import { GatewayError } from '../../src/http/errors.js';
import type { NeutralRequest, ToolSpec } from '../../src/neutral/request.js';
import { post } from '../helpers/chat-scenarios.js';
import { startHarness } from '../helpers/harness.js';
import { NEUTRAL } from '../helpers/neutral-call.js';
import { catalogue } from '../helpers/translate.js';

/**
 * Tool names a vendor could not tell apart are a 400 naming the tool, before any upstream call:
 * two tools of one name (every vendor refuses them), and on alpha with JSON output a tool named
 * like the tool that output is asked through.
 */

type Json = Record<string, any>;
const tool = (name: string): ToolSpec => ({ name, parameters: { type: 'object' } });
const JSON_FORMAT: NeutralRequest['responseFormat'] = { type: 'json_object', param: 'text.format' };

function model(id: string): ModelEntry {
  const entry = catalogue.resolve(id);
  if (!entry) throw new Error(`${id} is not in the catalogue`);
  return entry;
}

/** The GatewayError `build` throws, or null. */
function refusal(build: () => unknown): GatewayError | null {
  try {
    build();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  return null;
}

const builders: Record<string, (request: NeutralRequest) => unknown> = {
  alpha: (request) => alphaRequestBody(request, model('alpha-sonnet-4.6'), false),
  beta: (request) => betaRequestBody(request, model('beta-3-flash'), new Map()),
  gamma: (request) => gammaChatBody(request, model('gamma-5.4'), false),
};

t.test('two tools of one name: a 400 naming the second, on every family', async (t) => {
  for (const [family, build] of Object.entries(builders)) {
    const error = refusal(() => build({ ...NEUTRAL, tools: [tool('f'), tool('g'), tool('f')] }));
    t.match(error, { status: 400, param: 'tools[2]', message: /named 'f' like an earlier tool/ }, family);
    t.equal(
      refusal(() => build({ ...NEUTRAL, tools: [tool('f'), tool('g')] })),
      null,
      `${family}: distinct names pass`,
    );
  }
});

t.test(`alpha's JSON output tool: a caller's tool of that name is refused only when the JSON answer is that tool`, async (t) => {
  const build = builders['alpha'] as (request: NeutralRequest) => unknown;
  t.match(
    refusal(() => build({ ...NEUTRAL, tools: [tool('g'), tool(JSON_TOOL)], responseFormat: JSON_FORMAT })),
    { status: 400, param: 'tools[1]' },
  );
  t.equal(
    refusal(() => build({ ...NEUTRAL, tools: [tool(JSON_TOOL)] })),
    null,
    'without JSON output the name is free',
  );
  const native: NeutralRequest['responseFormat'] = { type: 'json_schema', name: 'x', schema: { type: 'object' }, param: 'text.format' };
  t.equal(
    refusal(() => build({ ...NEUTRAL, tools: [tool(JSON_TOOL)], responseFormat: native })),
    null,
    'a JSON schema alpha answers natively leaves it free',
  );
  t.equal(
    refusal(() => (builders['gamma'] as (request: NeutralRequest) => unknown)({ ...NEUTRAL, tools: [tool(JSON_TOOL)], responseFormat: JSON_FORMAT })),
    null,
    'other families have no such tool',
  );
});

t.test('end to end through the Responses API: the 400, and no upstream call', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const ask = (body: Json) => post(h, key, '/v1/responses', body);
  const fn = (name: string): Json => ({ type: 'function', name, parameters: { type: 'object', properties: {} } });
  const before = h.alpha.requests.length + h.gamma.requests.length;
  const clash = await ask({ model: 'alpha-sonnet-4.6', input: 'hi', tools: [fn(JSON_TOOL)], text: { format: { type: 'json_object' } } });
  t.match(clash, { status: 400, json: { error: { type: 'invalid_request', param: 'tools[0]' } } });
  const twice = await ask({ model: 'gamma-5.4', input: 'hi', tools: [fn('f'), fn('f')] });
  t.match(twice, { status: 400, json: { error: { param: 'tools[1]', message: /tool names must be unique/ } } });
  t.equal(h.alpha.requests.length + h.gamma.requests.length, before, 'neither reached a vendor');
});
