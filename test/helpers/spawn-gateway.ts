import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Runs `src/main.ts` as its own process (what `npm start` runs, through the test runner's esbuild
 * type stripper instead of a build), for tests of start-up, signals and crashes; or, given `entry`,
 * an already compiled main.js (see compiled-gateway.ts).
 */

/** The test runner's type stripper (esbuild), a fraction of ts-node's start-up in every spawned gateway. */
const TS_LOADER = new URL('../runner/ts-loader/register.mjs', import.meta.url).href;

export interface SpawnedGateway {
  process: ChildProcess;
  /** stdout and stderr, as they arrive. */
  output: () => string;
  /** Resolves with the origin once the gateway logs that it listens. */
  ready: Promise<string>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

/** `entry`: a transpiled main.js (compiled-gateway.ts) to run instead of src/main.ts through the loader. */
export function spawnGateway(env: Record<string, string>, entry?: string): SpawnedGateway {
  const child = spawn(process.execPath, entry ? [entry] : ['--import', TS_LOADER, 'src/main.ts'], {
    // Only what is given: no vendor key or admin token leaks in from the test's environment.
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const match = /"origin":"(http:\/\/[^"]+)"[^\n]*gateway listening/.exec(text);
      if (match) resolve(match[1] as string);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`gateway exited (${code}) before listening:\n${text}`)));
  });
  ready.catch(() => undefined);
  return {
    process: child,
    output: () => text,
    ready,
    exited,
    kill: (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
    },
  };
}
