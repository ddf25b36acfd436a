import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

/**
 * A throwaway PostgreSQL server, for the tests (test/helpers/postgres.ts) and the bench
 * (`--store postgres`): Debian's server binaries, `initdb` into a temp dir, listening on
 * 127.0.0.1 only (and a socket in that dir). `createDatabase()` gives each user an empty
 * database of its own. Stopped (immediate) and its dir removed by `stop()`, or at the latest
 * when the process exits. As root (CI) the server runs as the unprivileged `postgres` user, since
 * initdb refuses to run as root.
 */

const START_TIMEOUT_S = 30;
const RUN_TIMEOUT_MS = (START_TIMEOUT_S + 15) * 1000;
const SERVER_USER = 'postgres';

export interface PostgresServer {
  /** The postmaster's pid (its backends are its children). */
  readonly pid: number;
  /** `postgresql://user@127.0.0.1:port`, a database's name to be appended. */
  readonly url: string;
  /** An empty database of its own; its URL. */
  createDatabase(): Promise<string>;
  /**
   * Stops the server (every session cut off; `fast`, so that what is not yet on disk is kept)
   * and resolves with a function that starts it again on the same port.
   */
  outage(): Promise<() => Promise<void>>;
  /**
   * Freezes the server and its sessions (SIGSTOP): connections are still accepted by the kernel
   * and queries still sent, but nothing answers. Returns a function that thaws it.
   */
  freeze(): () => void;
  stop(): Promise<void>;
}

export interface PostgresServerOptions {
  /** Server settings (`-c name=value`) beyond the address, port and socket dir. */
  settings: Readonly<Record<string, string>>;
  /** A `taskset -c` CPU list for the server and every process it starts; null: not pinned. */
  cpus?: string | null;
}

/** Where the server binaries are looked for: `PATH` (pg_config, initdb) and Debian's versioned folders. */
export interface PostgresSearch {
  path: string;
  debianRoot: string;
}

const THIS_MACHINE = (): PostgresSearch => ({ path: process.env['PATH'] ?? '', debianRoot: '/usr/lib/postgresql' });

/** What to install when they are not found, in one line. */
export const POSTGRES_MISSING =
  'PostgreSQL server binaries (initdb, pg_ctl) not found (pg_config --bindir, /usr/lib/postgresql/*/bin): ' +
  'the PostgreSQL store tests and `npm run bench -- --store postgres` need them. Install Debian\'s package "postgresql" (apt-get install postgresql); .ci/run does.';

/** The server binaries' folder: `pg_config --bindir`, the newest <debianRoot>/N/bin, or initdb's folder on PATH; null: none. */
export function postgresBinDir(search: PostgresSearch = THIS_MACHINE()): string | null {
  const candidates: string[] = [];
  try {
    candidates.push(
      execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', env: { ...process.env, PATH: search.path }, stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
    );
  } catch {
    // pg_config is in libpq-dev, not always installed: look where Debian puts the server.
  }
  if (existsSync(search.debianRoot)) {
    const versions = readdirSync(search.debianRoot)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join(search.debianRoot, v, 'bin')));
  }
  for (const dir of search.path.split(':')) {
    if (dir && existsSync(join(dir, 'initdb'))) candidates.push(dirname(realpathSync(join(dir, 'initdb'))));
  }
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) ?? null;
}

function binDir(): string {
  const found = postgresBinDir();
  if (!found) throw new Error(POSTGRES_MISSING);
  return found;
}

const asRoot = (): boolean => process.getuid?.() === 0;

/** The command line: pinned when asked, and run as the server's user when we are root. */
function command(bin: string, args: string[], cpus: string | null): [string, string[]] {
  const user = asRoot() ? ['runuser', '-u', SERVER_USER, '--'] : [];
  const pin = cpus === null ? [] : ['taskset', '-c', cpus];
  const [file, ...rest] = [...pin, ...user, bin, ...args];
  return [file as string, rest];
}

function run(line: [string, string[]]): Promise<string> {
  const [file, argv] = line;
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: RUN_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${argv.join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

/** A port nobody listens on right now (the server could still lose a race for it: start retries). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startPostgresServer(options: PostgresServerOptions): Promise<PostgresServer> {
  const cpus = options.cpus ?? null;
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-pg-'));
  if (asRoot()) {
    const uid = Number(execFileSync('id', ['-u', SERVER_USER], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', SERVER_USER], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const pgCtl = join(bin, 'pg_ctl');
  let running = false;
  const stopNow = (): void => {
    if (running) {
      running = false;
      const [file, argv] = command(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop'], null);
      try {
        execFileSync(file, argv, { stdio: 'ignore', timeout: 20_000 });
      } catch {
        // Already gone.
      }
    }
    // Retried: the server's last processes may still be writing as an immediate stop returns.
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
  // Never left behind, even if the caller's own cleanup does not run.
  process.once('exit', stopNow);

  try {
    await run(command(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', SERVER_USER, '--no-sync', '-E', 'UTF8', '--locale=C'], null));
    let port = 0;
    const settings = Object.entries(options.settings).map(([name, value]) => `-c ${name}=${value}`);
    const start = async (): Promise<void> => {
      const serverOptions = [`-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`, ...settings].join(' ');
      await run(command(pgCtl, ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', String(START_TIMEOUT_S), '-o', serverOptions, 'start'], cpus));
      running = true;
    };
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- start() sets it.
    for (let attempt = 1; !running; attempt++) {
      port = await freePort();
      try {
        await start();
      } catch (error) {
        const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : '';
        if (attempt >= 3 || !/could not bind|Address already in use/.test(log)) throw new Error(`${(error as Error).message}\n${log}`, { cause: error });
      }
    }
    const postmaster = (): number => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const pid = postmaster();
    const base = `postgresql://${SERVER_USER}@127.0.0.1:${port}`;
    let databases = 0;
    return {
      pid,
      url: base,
      async createDatabase() {
        const name = `test_${++databases}`;
        const admin = new pg.Client({ connectionString: `${base}/postgres` });
        await admin.connect();
        try {
          // FILE_COPY: a plain copy of the template, faster than WAL-logging it.
          await admin.query(`CREATE DATABASE ${name} STRATEGY = FILE_COPY`);
        } finally {
          await admin.end();
        }
        return `${base}/${name}`;
      },
      async outage() {
        await run(command(pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop'], null));
        running = false;
        return start;
      },
      freeze() {
        const main = postmaster();
        const children = execFileSync('pgrep', ['-P', String(main)], { encoding: 'utf8' })
          .split('\n')
          .filter(Boolean)
          .map(Number);
        const signal = (name: NodeJS.Signals): void => {
          for (const one of [main, ...children]) {
            try {
              process.kill(one, name);
            } catch {
              // A session that ended meanwhile.
            }
          }
        };
        signal('SIGSTOP');
        return () => signal('SIGCONT');
      },
      async stop() {
        process.removeListener('exit', stopNow);
        stopNow();
      },
    };
  } catch (error) {
    process.removeListener('exit', stopNow);
    stopNow();
    throw error;
  }
}
