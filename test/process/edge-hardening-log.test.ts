import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import t from 'tap';
import { MAX_LOGGED_CHARS } from '../../src/http/redact.js';
import { logRequests } from '../../src/http/request-log.js';
import { createLogger, stdoutDestination } from '../../src/log.js';

/**
 * What a caller without a key can make the log hold: each request's line is short whatever the
 * path, and lines the output cannot take fast enough are dropped beyond a bound, counted, and
 * the count logged once the output caught up.
 */

t.test('the request log cuts a long path and marks the cut', async (t) => {
  const lines: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write: (chunk: Buffer, _e, done) => {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  const path = `/v1/${'a'.repeat(16_000)}`;
  const res = Object.assign(new EventEmitter(), { statusCode: 404 });
  logRequests(log)({ method: 'GET', url: `${path}?q=1` } as IncomingMessage, res as unknown as ServerResponse);
  res.emit('close');
  const logged = JSON.parse(lines[0] ?? '{}') as { path: string; status: number };
  t.equal(logged.status, 404);
  t.ok(logged.path.length < MAX_LOGGED_CHARS + 50, `the logged path has ${logged.path.length} characters`);
  t.equal(logged.path, `${path.slice(0, MAX_LOGGED_CHARS)}… (truncated from ${path.length} characters)`);
});

t.test('a destination whose reader stalls holds at most its bound, drops the rest and says how many', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'log-destination-'));
  const fifo = join(dir, 'out');
  execFileSync('mkfifo', [fifo]);
  // Read and write ends in one descriptor, non-blocking: nothing reads until the test does (a stalled stdout).
  const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  t.teardown(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  const bound = 64 * 1024;
  const destination = stdoutDestination(fd, bound);
  const line = `${JSON.stringify({ msg: 'x'.repeat(480) })}\n`;
  const sent = 2_000;
  for (let i = 0; i < sent; i += 1) destination.write(line);

  // Now the reader catches up: everything that was kept, then the notice.
  let text = '';
  const buffer = Buffer.alloc(64 * 1024);
  const deadline = Date.now() + 10_000;
  while (!text.includes('log lines dropped') && Date.now() < deadline) {
    try {
      text += buffer.toString('utf8', 0, readSync(fd, buffer));
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20)); // EAGAIN: nothing yet
    }
  }
  const lines = text.split('\n').filter(Boolean);
  const kept = lines.filter((l) => l === line.trimEnd()).length;
  const notice = JSON.parse(lines.find((l) => l.includes('log lines dropped')) ?? '{}') as { level?: number; dropped_lines?: number };
  t.ok(kept > 0 && kept * line.length <= bound, `${kept} of ${sent} lines kept (${kept * line.length} bytes, bound ${bound})`);
  t.equal(notice.dropped_lines, sent - kept, 'the notice counts every line dropped');
  t.equal(notice.level, 40, 'at warn');
});
