import type { Logger } from 'pino';

/**
 * SIGTERM or SIGINT (the first one; later ones are ignored while closing): `close`, then what the
 * asynchronous log still holds, then exit 0 — or 1, logged, if closing failed.
 */
export function closeOnSignals(log: Logger, close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'signal received');
    void close()
      .then(
        () => 0,
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          return 1;
        },
      )
      .then((code) => log.flush(() => process.exit(code)));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
