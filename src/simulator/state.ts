import { AccountLimits } from './limits.ts';
import { ScriptBook } from './script.ts';

/** Everything the simulator remembers: scripts, what it was asked, files and jobs. */

export interface LoggedRequest {
  seq: number;
  time: string;
  provider: string;
  method: string;
  path: string;
  model: string | null;
  prompt: string;
  system: string | null;
  location: string | null;
  language: string | null;
}

export interface SimJob<T = unknown> {
  id: string;
  provider: string;
  createdAt: number;
  readyAt: number;
  cancelled: boolean;
  data: T;
  /** Built once, the first time the job is seen ready, so later polls agree. */
  output?: unknown;
}

const MAX_LOG = 2000;

export class SimState {
  readonly scripts = new ScriptBook();
  /** Requests per minute per upstream, when asked; 429 past them. */
  readonly limits = new AccountLimits();
  readonly requests: LoggedRequest[] = [];
  /** Requests per provider since the log was last cleared; unlike the log, never trimmed. */
  readonly counts: Record<string, number> = {};
  readonly files = new Map<
    string,
    { id: string; filename: string; purpose: string; content: string; createdAt: number }
  >();
  readonly jobs = new Map<string, SimJob>();
  private seq = 0;
  private ids = 0;

  log(entry: Omit<LoggedRequest, 'seq' | 'time'>): void {
    this.requests.push({ ...entry, seq: ++this.seq, time: new Date().toISOString() });
    this.counts[entry.provider] = (this.counts[entry.provider] ?? 0) + 1;
    if (this.requests.length > MAX_LOG) this.requests.splice(0, this.requests.length - MAX_LOG);
  }

  clearLog(): void {
    this.requests.length = 0;
    for (const k of Object.keys(this.counts)) delete this.counts[k];
  }

  nextId(): number {
    return ++this.ids;
  }
}
