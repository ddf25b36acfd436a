import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEgressGuard } from './egress-guard.js';
import { clientsMissing, CLIENTS_MODULES, INSTALL_CLIENTS } from './installed.js';

/**
 * Codex CLI, Claude Code and Gemini CLI, the published binaries from test/clients/node_modules, run headless
 * against a base URL with nothing but what a user sets (docs/clients.md): Codex's custom provider
 * in a fresh CODEX_HOME, Claude Code's three environment variables with a fresh HOME, Gemini CLI's two with its
 * API-key sign-in chosen in a fresh HOME's settings. Each run is
 * in a fresh working folder, bounded in time, and kept on loopback: its proxy is an egress guard
 * (egress-guard.ts) and each client's own switches for its telemetry and update checks are on
 * (CODEX_QUIET_CONFIG, CLAUDE_QUIET_ENV). The README's recipes are held to the settings a user
 * types by test/clients/recipes.test.ts.
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

/**
 * Codex's own switches (`-c` overrides, not in the user's config.toml) for what it sends besides
 * the conversation: its update check, its analytics and its sync of a curated plugin list from
 * GitHub and chatgpt.com. With or without them Codex sends the gateway the same requests, but for
 * the `analytics_enabled` flag inside its `client_metadata`.
 */
export const CODEX_QUIET_CONFIG = ['check_for_update_on_startup=false', 'analytics.enabled=false', 'features.plugins=false'];

/**
 * Claude Code's documented switches for what it sends besides the conversation (updates,
 * telemetry, error reports); of what it sends the gateway, they leave out only its `HEAD /api/hello` probe.
 */
export const CLAUDE_QUIET_ENV: Record<string, string> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
};

/** What Gemini CLI is given: the gateway's origin and the key (`@google/genai` sends it as `x-goog-api-key`). */
export const geminiEnv = (origin: string, key: string): Record<string, string> => ({
  GOOGLE_GEMINI_BASE_URL: origin,
  GEMINI_API_KEY: key,
});

/**
 * Gemini CLI's `~/.gemini/settings.json` as a user writes it: the API-key sign-in chosen (without
 * it a base URL alone selects its `gateway` sign-in, which a headless run refuses).
 */
export const GEMINI_SIGN_IN = { security: { auth: { selectedType: 'gemini-api-key' } } };

/** Gemini CLI's own switches for what it sends besides the conversation: usage statistics, telemetry, update checks. */
export const GEMINI_QUIET_SETTINGS = {
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
};

export interface CliRun {
  /** Exit code (null: killed at the time bound). */
  code: number | null;
  /** stdout and stderr together. */
  output: string;
  /** The working folder the client ran in (removed by the caller's teardown). */
  workDir: string;
  /** `host:port` of each outside request the egress guard refused, in order. */
  refused: string[];
}

/** For the test log: which outside hosts the client asked for (each refused), once each. */
export const refusedNote = (run: CliRun): string =>
  run.refused.length ? `outside requests refused: ${[...new Set(run.refused)].join(', ')}` : 'no outside request';

interface Teardown {
  teardown(fn: () => unknown): void;
}

const RUN_BOUND_MS = 30_000;
/** Gemini CLI is one large Node bundle: a run took 10–25 s on a loaded two-core machine, mostly its start. */
const GEMINI_RUN_BOUND_MS = 60_000;

async function run(t: Teardown, file: string, args: string[], env: Record<string, string>, workDir: string, boundMs = RUN_BOUND_MS): Promise<CliRun> {
  const guard = await startEgressGuard();
  t.teardown(() => guard.close());
  const result = await new Promise<Omit<CliRun, 'refused'>>((done) => {
    // Only what is given, PATH (the shell tools the agents run) and the guard as proxy: no key or setting leaks in from the test's environment.
    const child = spawn(file, args, { cwd: workDir, env: { PATH: process.env['PATH'] ?? '', ...guard.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
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
  return { ...result, refused: guard.refused() };
}

function tempDir(t: Teardown, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const platform = `${process.platform}-${process.arch}`;

/** Claude Code's platform package suffix: `linux-x64`, or `linux-x64-musl` on a musl libc. */
function claudeTarget(): string {
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return process.platform === 'linux' && !report?.header?.glibcVersionRuntime ? `${platform}-musl` : platform;
}

/** Codex CLI's launcher (it finds its platform binary itself), or why it cannot run, in one line. */
export function codexBinary(): { file: string } | { missing: string } {
  const missing = clientsMissing();
  if (missing) return { missing };
  const file = join(CLIENTS_MODULES, '.bin', 'codex');
  if (existsSync(file) && existsSync(join(CLIENTS_MODULES, `@openai/codex-${platform}`))) return { file };
  return { missing: `Codex CLI is not installed for ${platform} (@openai/codex and its optional @openai/codex-${platform}): run: ${INSTALL_CLIENTS}` };
}

/** Claude Code's package: the wrapper whose postinstall puts its platform's native binary in place of its placeholder. */
export const CLAUDE_PACKAGE = '@anthropic-ai/claude-code';

/** Claude Code's `claude`, or why it cannot run, in one line. */
export function claudeBinary(): { file: string } | { missing: string } {
  const missing = clientsMissing();
  if (missing) return { missing };
  const file = join(CLIENTS_MODULES, CLAUDE_PACKAGE, 'bin', 'claude.exe');
  const native = join(CLIENTS_MODULES, `${CLAUDE_PACKAGE}-${claudeTarget()}`, process.platform === 'win32' ? 'claude.exe' : 'claude');
  // The placeholder is a few hundred bytes; after the postinstall the wrapper's binary is the native one.
  if (existsSync(file) && existsSync(native) && statSync(file).size === statSync(native).size) return { file };
  return {
    missing: `Claude Code's native binary is not in place (${CLAUDE_PACKAGE}-${claudeTarget()} and the wrapper's postinstall, allowed in test/clients/package.json): run: ${INSTALL_CLIENTS}`,
  };
}

/** Gemini CLI's `gemini`, or why it cannot run, in one line. */
export function geminiBinary(): { file: string } | { missing: string } {
  const missing = clientsMissing();
  if (missing) return { missing };
  const file = join(CLIENTS_MODULES, '.bin', 'gemini');
  return existsSync(file) ? { file } : { missing: `Gemini CLI is not installed (@google/gemini-cli): run: ${INSTALL_CLIENTS}` };
}

export interface CodexRun extends CliRun {
  /** What `codex exec` wrote as its last message ('' if none). */
  lastMessage: string;
}

/**
 * `codex exec <prompt>` against `baseURL` (…/v1) with `key`, sandbox off (a container has none
 * to offer); with `outputSchema`, the final answer is asked in that JSON shape (`--output-schema`).
 */
export async function runCodex(
  t: Teardown,
  file: string,
  options: { baseURL: string; key: string; model: string; prompt: string; outputSchema?: object },
): Promise<CodexRun> {
  const home = tempDir(t, 'codex-home-');
  const workDir = tempDir(t, 'codex-work-');
  writeFileSync(join(home, 'config.toml'), codexConfig(options.baseURL, options.model));
  const last = join(home, 'last-message.txt');
  const args = [
    'exec',
    ...CODEX_QUIET_CONFIG.flatMap((setting) => ['-c', setting]),
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    '--output-last-message',
    last,
  ];
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
  return run(
    t,
    file,
    ['-p', options.prompt, '--allowedTools', 'Bash'],
    { HOME: home, ...CLAUDE_QUIET_ENV, ...claudeEnv(options.origin, options.key, options.model) },
    workDir,
  );
}

/** `gemini -p <prompt> -m <model>` against `origin` with `key`, tools approved without a prompt (`--yolo`: a headless run cannot ask) in a fresh folder it is told to trust (`--skip-trust`). */
export function runGemini(t: Teardown, file: string, options: { origin: string; key: string; model: string; prompt: string }): Promise<CliRun> {
  const home = tempDir(t, 'gemini-home-');
  const workDir = tempDir(t, 'gemini-work-');
  mkdirSync(join(home, '.gemini'));
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ ...GEMINI_SIGN_IN, ...GEMINI_QUIET_SETTINGS }));
  return run(
    t,
    file,
    ['-p', options.prompt, '-m', options.model, '--yolo', '--skip-trust'],
    { HOME: home, ...geminiEnv(options.origin, options.key) },
    workDir,
    GEMINI_RUN_BOUND_MS,
  );
}
