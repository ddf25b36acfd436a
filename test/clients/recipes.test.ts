import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import {
  CLAUDE_QUIET_ENV,
  claudeEnv,
  CODEX_KEY_ENV,
  CODEX_QUIET_CONFIG,
  codexConfig,
  GEMINI_QUIET_SETTINGS,
  GEMINI_SIGN_IN,
  geminiEnv,
} from './helpers/cli-clients.js';
import { clientsMissing, CLIENTS_DIR, CLIENTS_MODULES } from './helpers/installed.js';

/**
 * The README's and docs/clients.md's recipes for the clients are what the client tests run:
 * Codex's config.toml is the one the tests write, Claude Code gets the same variables and no
 * other, and each SDK is constructed with the same options as in test/clients/helpers/sdk-clients.ts.
 */

const DOCS = ['README.md', 'docs/clients.md'].map((file) => ({ file, text: readFileSync(file, 'utf8') }));
const SDK_SOURCE = readFileSync(join(CLIENTS_DIR, 'helpers/sdk-clients.ts'), 'utf8');
const BASE = 'http://localhost:8080';

const blocks = (text: string, language: string): string[] =>
  [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);

/** The top-level option names of the first `<call>({ … })` in `text` (nested objects skipped). */
function optionsOf(text: string, call: string): string[] | null {
  const start = text.indexOf(`${call}({`);
  if (start === -1) return null;
  let depth = 0;
  let body = '';
  for (const char of text.slice(start + call.length + 1)) {
    if (char === '{') depth += 1;
    if (char === '}') depth -= 1;
    if (depth === 1 && char !== '{') body += char;
    if (depth === 0) break;
  }
  return [...body.matchAll(/(?:^|,)\s*([A-Za-z]+)\s*(?::|,|$)/g)].map((m) => m[1] as string).sort();
}

t.test("Codex CLI: the recipe's config.toml is the one the tests write", async (t) => {
  for (const { file, text } of DOCS) {
    const toml = blocks(text, 'toml');
    t.equal(toml.length, 1, `${file}: one config.toml`);
    const model = /model = "([^"]+)"/.exec(toml[0] ?? '')?.[1] ?? '';
    t.equal(toml[0], codexConfig(`${BASE}/v1`, model), `${file}: the provider the tests configure, with the gateway's /v1`);
    t.match(text, `export ${CODEX_KEY_ENV}=sl-…`, `${file}: the key in the variable the provider names`);
  }
});

t.test('Claude Code: the recipe sets the variables the tests set, and nothing else', async (t) => {
  const expected = claudeEnv(BASE, 'sl-…', 'alpha-sonnet-4.6');
  for (const { file, text } of DOCS) {
    const recipe = blocks(text, 'sh').find((block) => block.includes('ANTHROPIC_BASE_URL')) ?? '';
    const set = Object.fromEntries([...recipe.matchAll(/\b([A-Z][A-Z0-9_]+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string]));
    t.same(Object.keys(set).sort(), Object.keys(expected).sort(), `${file}: ${Object.keys(expected).join(', ')}`);
    t.equal(set['ANTHROPIC_BASE_URL'], expected['ANTHROPIC_BASE_URL'], `${file}: the base URL is the origin, without /v1`);
    t.notMatch(recipe, /CLAUDE_CODE_/, `${file}: no switch that turns a Claude Code feature off`);
  }
});

t.test('Gemini CLI: the recipe sets the variables and the sign-in setting the tests set, and nothing else', async (t) => {
  const text = DOCS[1]?.text ?? '';
  const recipe = blocks(text, 'sh').find((block) => block.includes('GOOGLE_GEMINI_BASE_URL')) ?? '';
  const set = Object.fromEntries([...recipe.matchAll(/\b([A-Z][A-Z0-9_]+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string]));
  t.same(set, geminiEnv(BASE, 'sl-…'), 'the base URL is the origin, the key the gateway key');
  t.same(
    blocks(text, 'json').map((block) => JSON.parse(block) as unknown),
    [GEMINI_SIGN_IN],
    'settings.json chooses the API-key sign-in, and nothing else',
  );
});

t.test('the SDKs: each recipe constructs the client with the options the tests use', async (t) => {
  const calls: Array<[string, string, string[]]> = [
    ['Vercel AI SDK', 'createOpenAI', []],
    ['OpenAI Agents SDK', 'setDefaultOpenAIClient(new OpenAI', []],
    // The tests run LangChain both ways; the recipe says how to switch.
    ['LangChain', 'new ChatOpenAI', ['useResponsesApi']],
  ];
  for (const [client, call, switches] of calls) {
    const tested = optionsOf(SDK_SOURCE, call)?.filter((name) => !switches.includes(name));
    t.ok(tested?.length, `${client}: the tests construct it with ${call}`);
    for (const { file, text } of DOCS) {
      t.same(optionsOf(text, call), tested, `${file}: ${client} with ${tested?.join(', ')}`);
      t.match(text, `baseURL: '${BASE}/v1'`, `${file}: the gateway's /v1 as the base URL`);
    }
    for (const name of switches) t.match(DOCS[1]?.text, `${name}: true`, `docs/clients.md says how to set ${name}`);
  }
});

t.test("the Agents SDK: its tracer is off in the tests, and the recipe's variable is the one the SDK reads", async (t) => {
  t.match(SDK_SOURCE, 'setTracingDisabled(true)', 'the tests turn the tracer off');
  const missing = clientsMissing();
  if (missing) return t.fail(missing);
  const config = readFileSync(join(CLIENTS_MODULES, '@openai/agents-core/dist/config.js'), 'utf8');
  t.match(config, "'OPENAI_AGENTS_DISABLE_TRACING'", 'the pinned SDK reads OPENAI_AGENTS_DISABLE_TRACING');
  for (const { file, text } of DOCS) t.match(text, 'OPENAI_AGENTS_DISABLE_TRACING=1', `${file}: documents it`);
});

t.test("docs/clients.md names the switches the tests' client runs add for the clients' own traffic", async (t) => {
  const text = (DOCS[1]?.text ?? '').replace(/\s+/g, ' ');
  for (const setting of CODEX_QUIET_CONFIG) t.match(text, `-c ${setting}`, `Codex: -c ${setting}`);
  for (const [name, value] of Object.entries(CLAUDE_QUIET_ENV)) t.match(text, `${name}=${value}`, `Claude Code: ${name}=${value}`);
  t.match(text, 'setTracingDisabled(true)', "the Agents SDK's tracer");
  const quiet = Object.entries(GEMINI_QUIET_SETTINGS).flatMap(([group, settings]) =>
    Object.entries(settings).map(([name, value]) => `${group}.${name}: ${String(value)}`),
  );
  for (const setting of quiet) t.match(text, setting, `Gemini CLI: ${setting}`);
});
