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

/**
 * Standard output, written asynchronously: a request's log line never waits for the write,
 * and lines that pile up while a write is under way leave together. `logger.flush()` at
 * shutdown writes what is left.
 */
export const stdoutDestination = (): DestinationStream => pino.destination({ dest: 1, sync: false });

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
