/** Runs `cleanup` once on SIGINT or SIGTERM, then exits (1 when the cleanup failed). */
export function onShutdown(cleanup: () => Promise<void>, log: { info(o: object, m: string): void }): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    cleanup().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
