/** Run after every cleanup as the process stops, whatever the cleanup did: tracing's last export (src/telemetry/tracing.ts). */
const lastSteps: (() => Promise<void>)[] = [];

export function atLastStop(step: () => Promise<void>): void {
  lastSteps.push(step);
}

/** Runs `cleanup` once on SIGINT or SIGTERM, then exits (1 when the cleanup failed). */
export function onShutdown(cleanup: () => Promise<void>, log: { info(o: object, m: string): void }): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    cleanup()
      .finally(() => Promise.allSettled(lastSteps.map((step) => step())))
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
