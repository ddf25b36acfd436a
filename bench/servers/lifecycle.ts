/**
 * A bench server process ends on SIGTERM (closing its listeners) and when its parent goes
 * away (the IPC channel closes), so an orchestrator killed with SIGKILL leaves nothing behind.
 */
export function stopOnSignal(close: () => Promise<unknown>): void {
  const stop = (): void => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
}
