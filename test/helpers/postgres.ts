import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

/**
 * A throwaway PostgreSQL server for tests: Debian's server binaries, `initdb` into a temp dir,
 * listening on 127.0.0.1 only (and a socket in that dir), fsync off. One server per test file;
 * `createDatabase()` gives each subtest an empty database of its own. Stopped (immediate) and
 * its dir removed at the file's teardown, or at the latest when the process exits. As root (CI)
 * the server runs as the unprivileged `postgres` user, since initdb refuses to run as root.
 */

const START_TIMEOUT_S = 30;
const RUN_TIMEOUT_MS = (START_TIMEOUT_S + 15) * 1000;
const SERVER_USER = 'postgres';

export interface PostgresServer {
  /** An empty database of its own; its URL. */
  createDatabase(): Promise<string>;
  /**
   * Stops the server (every session cut off; `fast`, so that what fsync=off and
   * synchronous_commit=off have not written yet is kept) and resolves with a function that
   * starts it again on the same port.
   */
  outage(): Promise<() => Promise<void>>;
  /**
   * Freezes the server and its sessions (SIGSTOP): connections are still accepted by the kernel
   * and queries still sent, but nothing answers. Resolves with a function that thaws it.
   */
  freeze(): () => void;
  stop(): Promise<void>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** The server binaries: `pg_config --bindir`, the newest /usr/lib/postgresql/N/bin, or initdb's folder on PATH. */
function binDir(): string {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    // pg_config is in libpq-dev, not always installed: look where Debian puts the server.
  }
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  for (const dir of (process.env['PATH'] ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb'))) candidates.push(dirname(realpathSync(join(dir, 'initdb'))));
  }
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (!found) {
    throw new Error(
      'PostgreSQL server binaries (initdb, pg_ctl) not found (pg_config --bindir, /usr/lib/postgresql/*/bin): ' +
        'the PostgreSQL store tests need them. Install Debian\'s package "postgresql" (apt-get install postgresql); .ci/run does.',
    );
  }
  return found;
}

const asRoot = (): boolean => process.getuid?.() === 0;

/** The command line, run as the server's user when we are root. */
function command(bin: string, args: string[]): [string, string[]] {
  return asRoot() ? ['runuser', ['-u', SERVER_USER, '--', bin, ...args]] : [bin, args];
}

function run(bin: string, args: string[]): Promise<string> {
  const [file, argv] = command(bin, args);
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: RUN_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${bin} ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
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

export async function startPostgres(t: Teardown): Promise<PostgresServer> {
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
      const [file, argv] = command(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
      try {
        execFileSync(file, argv, { stdio: 'ignore', timeout: 20_000 });
      } catch {
        // Already gone.
      }
    }
    // Retried: the server's last processes may still be writing as an immediate stop returns.
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
  // Never left behind, even if the file's teardown does not run.
  process.once('exit', stopNow);

  try {
    await run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', SERVER_USER, '--no-sync', '-E', 'UTF8', '--locale=C']);
    let port = 0;
    const options = (): string => `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    const start = (): Promise<string> => run(pgCtl, ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', String(START_TIMEOUT_S), '-o', options(), 'start']);
    for (let attempt = 1; !running; attempt++) {
      port = await freePort();
      try {
        await start();
        running = true;
      } catch (error) {
        const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : '';
        if (attempt >= 3 || !/could not bind|Address already in use/.test(log)) throw new Error(`${(error as Error).message}\n${log}`);
      }
    }
    const base = `postgresql://${SERVER_USER}@127.0.0.1:${port}`;
    let databases = 0;
    const server: PostgresServer = {
      async createDatabase() {
        const name = `test_${++databases}`;
        const admin = new pg.Client({ connectionString: `${base}/postgres` });
        await admin.connect();
        try {
          // FILE_COPY: a plain copy of the template, faster than WAL-logging it (fsync is off anyway).
          await admin.query(`CREATE DATABASE ${name} STRATEGY = FILE_COPY`);
        } finally {
          await admin.end();
        }
        return `${base}/${name}`;
      },
      freeze() {
        const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
        const all = [postmaster, ...children];
        const signal = (name: NodeJS.Signals): void => {
          for (const pid of all) {
            try {
              process.kill(pid, name);
            } catch {
              // A session that ended meanwhile.
            }
          }
        };
        signal('SIGSTOP');
        return () => signal('SIGCONT');
      },
      async outage() {
        await run(pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']);
        running = false;
        return async () => {
          await start();
          running = true;
        };
      },
      async stop() {
        process.removeListener('exit', stopNow);
        stopNow();
      },
    };
    t.teardown(() => server.stop());
    return server;
  } catch (error) {
    process.removeListener('exit', stopNow);
    stopNow();
    throw error;
  }
}
