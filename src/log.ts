import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Header and field paths censored in every log line. We never log request headers or bodies
 * at info, but a debug line or an error object that carries them must not leak a credential.
 */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["api-key"]',
  'req.headers["x-goog-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  'authorization',
  'apiKey',
  'api_key',
  'token',
  'key',
];

/** A log line waits at most this long for others to share its write. */
const LOG_FLUSH_MS = 200;

/**
 * Atomic write size of a pipe on Linux (PIPE_BUF). Workers of GATEWAY_WORKERS share one stdout:
 * sonic-boom cuts its batches at line ends and at most this long, so no write of one process
 * lands inside a line of another's.
 */
const ATOMIC_WRITE_BYTES = 4096;

/**
 * Log bytes held at most while stdout is slower than the lines come (a stalled pipe, a slow
 * collector): a line that would go beyond is dropped, not held, so a flood of requests cannot
 * grow the process's memory through its log.
 */
export const LOG_BUFFER_BYTES = 16 * 1024 * 1024;

let stampedAt = -1;
let stamp = '';

/**
 * pino's `isoTime` field, formatted once per millisecond: under load many lines share a
 * millisecond, and formatting a `Date` for each was 2.7 % of an invalid-key refusal's CPU.
 */
export function isoTimeOncePerMs(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = `,"time":"${new Date(now).toISOString()}"`;
  }
  return stamp;
}

/** Every line's fixed fields: the root logger's and the destination's own drop notices. */
const LINE_FORMAT = { base: { service: 'model-gateway' }, timestamp: isoTimeOncePerMs };

/**
 * Standard output (or `fd`), written asynchronously and in batches: a request's log line never
 * waits for the write, and lines leave together once 4 KiB have gathered or 200 ms have passed,
 * whichever comes first (one write per batch instead of one per request). At most
 * `maxBufferBytes` wait; lines beyond are dropped and counted, and once the output has caught
 * up a warning line says how many were lost. `logger.flush()` at shutdown writes what is left.
 */
export function stdoutDestination(fd = 1, maxBufferBytes = LOG_BUFFER_BYTES): DestinationStream {
  const destination = pino.destination({ dest: fd, sync: false, minLength: ATOMIC_WRITE_BYTES - 1, maxWrite: ATOMIC_WRITE_BYTES, maxLength: maxBufferBytes });
  let dropped = 0;
  destination.on('drop', () => (dropped += 1));
  const notices = pino(LINE_FORMAT, destination);
  destination.on('drain', () => {
    if (dropped === 0) return;
    notices.warn({ dropped_lines: dropped, max_buffer_bytes: maxBufferBytes }, 'log lines dropped: the output was slower than the lines came');
    dropped = 0;
  });
  const timer = setInterval(() => {
    try {
      destination.flush();
    } catch {
      clearInterval(timer); // destroyed at exit: nothing left to write
    }
  }, LOG_FLUSH_MS).unref();
  return destination;
}

/** The one root logger; plugins and requests get children of it. JSON lines, no pretty-printing. */
export function createLogger(level: string, destination: DestinationStream = stdoutDestination()): Logger {
  return pino(
    {
      ...LINE_FORMAT,
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}
