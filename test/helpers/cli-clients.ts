import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Codex CLI and Claude Code, the published binaries from node_modules, run headless against a
 * base URL with nothing but what a user sets (docs/clients.md): Codex's custom provider in a
 * fresh CODEX_HOME, Claude Code's three environment variables with a fresh HOME. Each run is in
 * a fresh working folder and bounded in time. The README's recipes are held to these settings
 * by test/client-recipes.test.ts.
 */

/** The environment variable Codex's provider reads the key from (`env_key`). */
export const CODEX_KEY_ENV = 'GATEWAY_API_KEY';

/** Codex's `config.toml` for the gateway: a custom provider speaking Responses. */
export const codexConfig = (baseURL: string, model: string): string =>
  [
    `model = "${model}"`,
    'model_provider = "gateway"',
    '',
    '[model_providers.gateway]',
    'name = "Model gateway"',
    `base_url = "${baseURL}"`,
    `env_key = "${CODEX_KEY_ENV}"`,
    'wire_api = "responses"',
    '',
  ].join('\n');

/** What Claude Code is given: the gateway's origin, the key as a bearer token, the model. */
export const claudeEnv = (origin: string, key: string, model: string): Record<string, string> => ({
  ANTHROPIC_BASE_URL: origin,
  ANTHROPIC_AUTH_TOKEN: key,
  ANTHROPIC_MODEL: model,
});

export interface CliRun {
  /** Exit code (null: killed at the time bound). */
  code: number | null;
  /** stdout and stderr together. */
  output: string;
  /** The working folder the client ran in (removed by the caller's teardown). */
  workDir: string;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

const RUN_BOUND_MS = 30_000;

function run(t: Teardown, file: string, args: string[], env: Record<string, string>, workDir: string): Promise<CliRun> {
  return new Promise((done) => {
    // Only what is given, plus PATH (the shell tools the agents run): no key or setting leaks in from the test's environment.
    const child = spawn(file, args, { cwd: workDir, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_BOUND_MS);
    t.teardown(() => {
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      done({ code: -1, output: `${output}${error.message}`, workDir });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, output, workDir });
    });
  });
}

function tempDir(t: Teardown, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const platform = `${process.platform}-${process.arch}`;

/** Claude Code's platform package suffix: `linux-x64`, or `linux-x64-musl` on a musl libc. */
function claudeTarget(): string {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return process.platform === 'linux' && !report?.header?.glibcVersionRuntime ? `${platform}-musl` : platform;
}

/** Codex CLI's launcher (it finds its platform binary itself), or why it is missing, in one line. */
export function codexBinary(): { file: string } | { missing: string } {
  const file = resolve('node_modules/.bin/codex');
  if (existsSync(file) && existsSync(resolve(`node_modules/@openai/codex-${platform}`))) return { file };
  return { missing: `Codex CLI is not installed for ${platform}: run \`npm ci\` (it installs @openai/codex and its optional platform package @openai/codex-${platform})` };
}

/** Claude Code's native binary (an optional dependency per platform: package.json), or why it is missing, in one line. */
export function claudeBinary(): { file: string; pkg: string } | { missing: string } {
  const pkg = `@anthropic-ai/claude-code-${claudeTarget()}`;
  const file = resolve('node_modules', pkg, process.platform === 'win32' ? 'claude.exe' : 'claude');
  if (existsSync(file)) return { file, pkg };
  return { missing: `Claude Code's native binary is not installed: run \`npm ci\` without --omit=optional (it installs the optional dependency ${pkg})` };
}

export interface CodexRun extends CliRun {
  /** What `codex exec` wrote as its last message ('' if none). */
  lastMessage: string;
}

/**
 * `codex exec <prompt>` against `baseURL` (…/v1) with `key`, sandbox off (a container has none
 * to offer); with `outputSchema`, the final answer is asked in that JSON shape (`--output-schema`).
 */
export async function runCodex(t: Teardown, file: string, options: { baseURL: string; key: string; model: string; prompt: string; outputSchema?: object }): Promise<CodexRun> {
  const home = tempDir(t, 'codex-home-');
  const workDir = tempDir(t, 'codex-work-');
  writeFileSync(join(home, 'config.toml'), codexConfig(options.baseURL, options.model));
  const last = join(home, 'last-message.txt');
  const args = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--output-last-message', last];
  if (options.outputSchema) {
    const schema = join(home, 'output-schema.json');
    writeFileSync(schema, JSON.stringify(options.outputSchema));
    args.push('--output-schema', schema);
  }
  args.push(options.prompt);
  const result = await run(t, file, args, { HOME: home, CODEX_HOME: home, [CODEX_KEY_ENV]: options.key }, workDir);
  return { ...result, lastMessage: existsSync(last) ? readFileSync(last, 'utf8') : '' };
}

/** `claude -p <prompt>` against `origin` with `key`, the Bash tool allowed (no permission prompt in a headless run). */
export function runClaude(t: Teardown, file: string, options: { origin: string; key: string; model: string; prompt: string }): Promise<CliRun> {
  const home = tempDir(t, 'claude-home-');
  const workDir = tempDir(t, 'claude-work-');
  return run(t, file, ['-p', options.prompt, '--allowedTools', 'Bash'], { HOME: home, ...claudeEnv(options.origin, options.key, options.model) }, workDir);
}
