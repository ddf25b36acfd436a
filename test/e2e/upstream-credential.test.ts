import t from 'tap';
import { REDACTED, scrubSecrets, withoutSecrets } from '../../src/http/redact.js';
import { createAlphaSimulator } from '../../plugins/vendor-alpha/simulator.js';
import { createBetaSimulator } from '../../plugins/vendor-beta/simulator.js';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import type { Fault } from '../../src/simulators/faults.js';
import type { SimServer } from '../../src/simulators/sim-server.js';
import { startHarness } from '../helpers/harness.js';

/**
 * The gateway's own vendor credential never reaches a caller: a vendor that refused it is not
 * quoted at all, and every other vendor message relayed (errors, in-stream error events) is
 * scrubbed of the credential, pieces of it and anything shaped like a secret.
 */

// Random-looking, without a known key prefix: only the credential rule can catch them.
const KEYS = { alpha: 'Qm7rT2vX9kL4pW8nJ3dZ6sHa', beta: 'Vb3nK8qR1tY6wM9xC4jL7pFe', gamma: 'Hz5fD2gN8cB4vS7kR1mQ9wTu' } as const;
type Family = keyof typeof KEYS;
const MODELS: Record<Family, string> = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' };

/** Every 8-character piece of the key: none may reach the caller. */
const pieces = (key: string): string[] => Array.from({ length: key.length - 7 }, (_, at) => key.slice(at, at + 8));
const masked = (key: string): string => `${key.slice(0, 9)}${'*'.repeat(12)}${key.slice(-4)}`;

t.test('scrubSecrets: the credential, pieces of it, and secret-shaped tokens; ordinary messages unchanged', async (t) => {
  const key = KEYS.gamma;
  const cases: Array<[string, string]> = [
    [`Incorrect API key provided: ${key}.`, `Incorrect API key provided: ${REDACTED}.`],
    [`key ${masked(key)} is invalid`, `key ${REDACTED}************${key.slice(-4)} is invalid`],
    [`partial ${key.slice(5, 13)} and ${key.slice(10)}`, `partial ${REDACTED} and ${REDACTED}`],
    ['caller used sk-proj-abcdefgh12345678 here', `caller used ${REDACTED} here`],
    ['our own sl-AbCdEfGh12345678IjKlMnOp leaked', `our own ${REDACTED} leaked`],
    ['key AIzaSyD4k9Qm2Rt7Vx1Lp8Wn3Jd6Hs5Fg0Ce-x', `key ${REDACTED}`],
    ['Authorization: Bearer abc.def-123_456', `Authorization: Bearer ${REDACTED}`],
    ['API key provided: 3f9a1c0b7e2d4a6f8b9c0d1e2f3a4b5c', `API key provided: ${REDACTED}`],
    ['token=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==', `token=${REDACTED}`],
    [
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens.",
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens.",
    ],
    ["Invalid value for 'temperature': must be at most 2.", "Invalid value for 'temperature': must be at most 2."],
    ['The api_key header is missing_authentication_header_value', 'The api_key header is missing_authentication_header_value'],
  ];
  for (const [input, expected] of cases) t.equal(scrubSecrets(input, key), expected, input);
  t.equal(scrubSecrets(`echo ${key}`, undefined), `echo ${key}`, 'without a credential only the shapes apply');
  t.equal(scrubSecrets(`credential configured: ${key}`, undefined), `credential configured: ${REDACTED}`, 'such as a token after "credential"');
});

interface Answer {
  status: number;
  text: string;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

async function startWithKeys(t: Teardown): Promise<{ sims: Record<Family, SimServer>; ask: (family: Family, stream: boolean) => Promise<Answer> }> {
  const sims = {
    alpha: createAlphaSimulator({ apiKey: KEYS.alpha }),
    beta: createBetaSimulator({ apiKey: KEYS.beta }),
    gamma: createGammaSimulator({ apiKey: KEYS.gamma }),
  };
  for (const sim of Object.values(sims)) {
    await sim.listen();
    t.teardown(() => sim.close());
  }
  const h = await startHarness(t, {
    ...sims,
    env: { ALPHA_API_KEY: KEYS.alpha, BETA_API_KEY: KEYS.beta, GAMMA_API_KEY: KEYS.gamma, GATEWAY_RETRY_MAX: '0' },
  });
  const { key } = await h.createKey();
  const ask = async (family: Family, stream: boolean): Promise<Answer> => {
    const res = await fetch(`${h.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS[family], stream, messages: [{ role: 'user', content: 'Hello [[sim:tokens=6]]' }] }),
    });
    const head = JSON.stringify([...res.headers.entries()]);
    return { status: res.status, text: `${res.status} ${head} ${await res.text()}` };
  };
  return { sims, ask };
}

/** The vendor's answer when it refused our credential, echoing it. */
const refusedCredential = (family: Family): Fault => {
  const key = KEYS[family];
  if (family !== 'beta') return { status: 401, message: `Incorrect API key provided: ${key} (${masked(key)}).` };
  // Beta refuses a bad key with 400 INVALID_ARGUMENT and the reason API_KEY_INVALID.
  const body = { error: { code: 400, message: `API key not valid: ${key}`, status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } };
  return { status: 400, rawBody: JSON.stringify(body) };
};

const FAMILIES: Family[] = ['alpha', 'beta', 'gamma'];

t.test('withoutSecrets: each secret whole, and nothing else', async (t) => {
  const text = '{"text":"a gamma-upstream-secret-key b sl-abcdefgh12345678 c sk-some-example-key-in-code x"}';
  t.equal(withoutSecrets(text, ['gamma-upstream-secret-key', 'sl-abcdefgh12345678']), `{"text":"a ${REDACTED} b ${REDACTED} c sk-some-example-key-in-code x"}`);
  t.equal(
    withoutSecrets(text, ['gamma-upstream']),
    `{"text":"a ${REDACTED}-secret-key b sl-abcdefgh12345678 c sk-some-example-key-in-code x"}`,
    'a secret found inside a longer text',
  );
  t.equal(withoutSecrets(text, ['x', 'abc']), text, 'a placeholder credential shorter than 8 characters rewrites nothing');
});

t.test('a vendor refusing our credential: our message only, in every family, streamed or not', async (t) => {
  const { sims, ask } = await startWithKeys(t);
  for (const family of FAMILIES) {
    for (const stream of [false, true]) {
      sims[family].faults.push(refusedCredential(family));
      const answer = await ask(family, stream);
      const label = `${family}${stream ? ', streamed' : ''}`;
      t.equal(answer.status, 502, `${label}: 502`);
      t.match(
        answer.text,
        `The ${family} upstream refused the gateway's own credentials or account. This is a gateway configuration problem, not your key.`,
        label,
      );
      t.notMatch(answer.text, /Incorrect API key|API key not valid/, `${label}: the vendor's message is not relayed`);
      for (const piece of pieces(KEYS[family])) if (answer.text.includes(piece)) t.fail(`${label}: the caller saw ${piece}`);
    }
  }
});

t.test('other vendor messages are relayed without the credential: errors and in-stream error events', async (t) => {
  const { sims, ask } = await startWithKeys(t);
  for (const family of FAMILIES) {
    const key = KEYS[family];
    const echo = `Request rejected for project key ${key}, also shown as ${masked(key)} and ${key.slice(3, 11)}`;
    const cases: Array<[string, Fault, boolean, number]> = [
      ['a 400', { status: 400, message: echo }, false, 400],
      ['a 400, streamed', { status: 400, message: echo }, true, 400],
      ['an in-stream error event', { errorAfterFrames: 2, message: echo }, true, 200],
    ];
    for (const [what, fault, stream, status] of cases) {
      sims[family].faults.push(fault);
      const answer = await ask(family, stream);
      const label = `${family}, ${what}`;
      t.equal(answer.status, status, `${label}: ${status}`);
      t.match(answer.text, `Request rejected for project key ${REDACTED}, also shown as ${REDACTED}`, `${label}: the message is relayed, scrubbed`);
      for (const piece of pieces(key)) if (answer.text.includes(piece)) t.fail(`${label}: the caller saw ${piece}`);
    }
  }
});
