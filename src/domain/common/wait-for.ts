/**
 * Polls `read` until `done` says so or `waitMs` passes, and answers the last
 * reading: a request that queued a job answers its result when the job is
 * quick, its progress otherwise (the job goes on either way).
 */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  waitMs: number,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((r) => setTimeout(r, Math.min(everyMs, Math.max(1, deadline - Date.now()))));
  }
}
