import t from 'tap';
import { FILE_TIMEOUT_MS } from './shared-processes.js';

/**
 * Runs several test files in this one process, one after the other, as if each had its own
 * (the entries shared-processes.ts writes call it). A file is imported (its tests queue on tap's
 * root), its tests run to their end, its file-level teardowns run, and only then is the next file
 * imported, so no file's module code or servers overlap another's tests. Each file's time is a
 * root comment `# file <path> time=<ms>ms`, which the runner's time table reads (file-times.ts).
 */

type Teardown = () => unknown;

/** Resolves when tap's root has run every test queued so far. */
function rootIdle(): Promise<void> {
  return new Promise((resolve) => (t.idle ? resolve() : t.once('idle', () => resolve())));
}

export async function runInOneProcess(files: readonly string[], fileTimeoutMs: number = FILE_TIMEOUT_MS): Promise<void> {
  // The runner's kill timer covers the whole process; a file that hangs is caught by its own below.
  t.setTimeout((files.length + 1) * fileTimeoutMs);
  // A file's root-level teardown belongs to the file: it runs when the file's tests end. tap's own
  // would also end the root at its first idle moment, before the next file's tests are queued.
  const rootTeardown = t.teardown.bind(t);
  let fileTeardowns: Teardown[] = [];
  t.teardown = (fn: Teardown) => void fileTeardowns.push(fn);
  try {
    for (const file of files) {
      const started = performance.now();
      let timedOut = false;
      // As tap's timeout of a file of its own: the still-open handles are printed and the root
      // ends, so the files after it do not run.
      const watchdog = setTimeout(() => {
        timedOut = true;
        t.timeout({ expired: file });
      }, fileTimeoutMs).unref();
      try {
        await import(new URL(file, `file://${process.cwd()}/`).href);
      } catch (error) {
        t.fail(`${file} could not be loaded`, { error });
      }
      await rootIdle();
      clearTimeout(watchdog);
      if (timedOut) return;
      for (const fn of fileTeardowns.reverse()) await fn();
      fileTeardowns = [];
      t.comment(`file ${file} time=${(performance.now() - started).toFixed(3)}ms`);
    }
  } finally {
    t.teardown = rootTeardown;
  }
}
