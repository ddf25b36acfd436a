import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The static checks `npm test` runs (`run.ts --checks`): the type check, the formatter's check and
 * the linter, one after the other, beside the tap run rather than before it. The test files spend
 * much of their time waiting on sockets and spawned processes; the checks, at the lowest CPU
 * priority (`nice -n 19`), fill those gaps without taking a core from a test that measures
 * latency or memory. Their output is kept and printed after the tests.
 */

export const STATIC_CHECKS: readonly string[] = ['typecheck', 'format:check', 'lint'];

export interface CheckResult {
  name: string;
  ok: boolean;
  seconds: number;
  /** What it printed (stdout and stderr): shown when it failed. */
  output: string;
}

/** The command a check runs: its npm script, niced. */
export const checkCommand = (name: string): [string, string[]] => ['nice', ['-n', '19', 'npm', 'run', '--silent', name]];

let running: ChildProcess | null = null;

/** Stops the check under way (an interrupted run). */
export function stopChecks(signal: NodeJS.Signals): void {
  running?.kill(signal);
}

type Check = [name: string, command: [string, string[]]];

function runCheck([name, command]: Check): Promise<CheckResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command[0], command[1], { stdio: ['ignore', 'pipe', 'pipe'] });
    running = child;
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const done = (ok: boolean, extra = ''): void => {
      running = null;
      resolve({ name, ok, seconds: (Date.now() - started) / 1000, output: Buffer.concat(chunks).toString('utf8') + extra });
    };
    child.on('error', (error) => done(false, String(error)));
    child.on('close', (code) => done(code === 0));
  });
}

/** Runs the checks in turn: by default the npm scripts of STATIC_CHECKS. */
export async function runChecks(checks: readonly Check[] = STATIC_CHECKS.map((name) => [name, checkCommand(name)])): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) results.push(await runCheck(check));
  return results;
}

/** What the run prints of them: one line each, and a failed one's output under it. */
export function checksReport(results: readonly CheckResult[]): string {
  return results
    .map((result) => {
      const line = `${result.ok ? 'passed' : 'FAILED'}  ${result.name} (${result.seconds.toFixed(1)} s)`;
      return result.ok ? line : `${line}\n${result.output.trimEnd()}`;
    })
    .join('\n');
}

/** The run's exit status: tap's when it failed, else 1 when a check failed. */
export const runStatus = (tapStatus: number, results: readonly CheckResult[]): number => tapStatus || (results.every((result) => result.ok) ? 0 : 1);
