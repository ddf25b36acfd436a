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
 * Standard output, written asynchronously and in batches: a request's log line never waits for
 * the write, and lines leave together once 4 KiB have gathered or 200 ms have passed, whichever
 * comes first (one write per batch instead of one per request). `logger.flush()` at shutdown
 * writes what is left.
 */
export function stdoutDestination(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: ATOMIC_WRITE_BYTES - 1, maxWrite: ATOMIC_WRITE_BYTES });
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
      level,
      base: { service: 'model-gateway' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
