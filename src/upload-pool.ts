import { Piscina } from 'piscina';

/**
 * Files a tenant sends in a request (a prompt CSV import, up to 2 MB) are
 * read on a worker thread, so an import never stalls the API's other requests
 * while a few hundred milliseconds of parsing run. One thread, started on
 * demand and gone when idle, so a process that reads no file keeps none; its
 * heap has its own limit, so a file that runs away with memory kills the
 * thread, not the process. The process has one pool, its context's
 * (`uploadPool` in src/context.ts, closed with it).
 *
 * What a file means is its reader's: each call names the task, a module whose
 * default export reads one file on the thread (domain/prompts/csv-thread.ts
 * for a prompt CSV), so this pool knows no file format.
 */
export interface UploadPool {
  /**
   * Runs `task`'s default export on `input` on the thread and answers what it
   * returned. Past `deadlineMs` the task is stopped and the call rejects with
   * an error named AbortError or TimeoutError; the next call still runs.
   */
  run(task: URL, input: string, deadlineMs: number): Promise<unknown>;
  close(): Promise<void>;
}

/** The thread's heap: far above what parsing a 2 MB file needs. */
export const UPLOAD_THREAD_HEAP_MB = 512;

export function createUploadPool(): UploadPool {
  let pool: Piscina | null = null;
  return {
    async run(task, input, deadlineMs) {
      pool ??= new Piscina({
        minThreads: 0,
        maxThreads: 1,
        idleTimeout: 2_000,
        resourceLimits: { maxOldGenerationSizeMb: UPLOAD_THREAD_HEAP_MB },
      });
      return (await pool.run(input, { filename: task.href, signal: AbortSignal.timeout(deadlineMs) })) as unknown;
    },
    async close() {
      const current = pool;
      pool = null;
      await current?.destroy();
    },
  };
}
