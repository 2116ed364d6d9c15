import type { JOBS } from './index.ts';

/**
 * The job table, imported on first call: it imports every handler and so the
 * whole domain, which a process that queues nothing (most CLI commands) need
 * not load. Each process's entry hands it to `createContext` (`jobTable`), so
 * the context, which every domain file imports, never imports the table.
 */
export async function loadJobTable(): Promise<typeof JOBS> {
  return (await import('./index.ts')).JOBS;
}
