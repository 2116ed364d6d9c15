import { agentOf } from './agents.ts';
import { parseCombined } from './combined.ts';
import { parseJsonLine } from './json-records.ts';
import { LineSplitter, type SplitterState } from './line-splitter.ts';
import { isAsset, pathOf } from './paths.ts';
import type { AddressRanges, Verification } from './ranges.ts';
import type { LogFormat, LogFormatChoice, LogRecord, Parsed } from './record.ts';
import { assistantOf } from './referrers.ts';

/**
 * Reads an access log chunk by chunk into traffic events: a hit of an AI
 * agent (by its User-Agent, checked against its published ranges), or a
 * person's visit sent by an assistant. Every other entry (people, other
 * bots) is counted and dropped; an entry that does not parse is counted as
 * skipped, with its line number and reason in a short sample, and never
 * stops the read. Pure: the caller feeds bytes and takes the events; what
 * is stored, and whether an event was counted before, is the domain's.
 */

/** A line longer than this is skipped unread: Vercel's largest entry (a 256 KB message) fits. */
export const MAX_LINE_BYTES = 512 * 1024;
/** Refusals kept with their line numbers. */
export const ERRORS_KEPT = 20;

export interface TrafficEvent {
  kind: 'agent' | 'referral';
  /** UTC day of the request, YYYY-MM-DD. */
  day: string;
  /** What identifies the request (time, method, target, status, address, User-Agent, Referer): hashed with the day's salt to know it again. */
  identity: string;
  /** The agent (`GPTBot`) or the assistant (`ChatGPT`). */
  name: string;
  path: string;
  status: number;
  verification: Verification;
}

export interface LineError {
  line: number;
  reason: string;
}

export interface ReaderOptions {
  format: LogFormatChoice;
  ranges: AddressRanges;
  /** Entries dated before this instant (ms) are skipped, and after `newest`. */
  oldest: number;
  newest: number;
  /** Reasons in the sample say why an entry is out of the window. */
  windowNote: string;
  /** Lines up to this number were read by an earlier attempt: counted as lines, nothing else. */
  skipThrough?: number;
}

const DAY_MS = 86_400_000;

/** A reader's counts and place, for another reader to go on from (its events taken). */
export interface ReaderState {
  lines: number;
  events: number;
  other: number;
  skipped: number;
  errors: LineError[];
  formats: LogFormat[];
  splitter: SplitterState;
}

export class LogReader {
  /** Non-blank lines read. */
  lines = 0;
  /** Entries that are an AI agent's hit or an assistant's referral. */
  events = 0;
  /** Entries that parsed but are neither (people, other bots, requests of no page). */
  other = 0;
  /** Entries (or lines) that did not parse, or lay outside the dates kept. */
  skipped = 0;
  readonly errors: LineError[] = [];
  readonly formats = new Set<LogFormat>();
  private pending: TrafficEvent[] = [];
  private readonly splitter: LineSplitter;
  private dayStart = NaN;
  private dayText = '';

  private readonly options: ReaderOptions;

  constructor(options: ReaderOptions, from?: ReaderState) {
    this.options = options;
    this.splitter = new LineSplitter(MAX_LINE_BYTES, from?.splitter);
    if (from) {
      this.lines = from.lines;
      this.events = from.events;
      this.other = from.other;
      this.skipped = from.skipped;
      this.errors.push(...from.errors);
      for (const f of from.formats) this.formats.add(f);
    }
  }

  /** Where this reader is (its pending events aside: take them first). */
  state(): ReaderState {
    return {
      lines: this.lines,
      events: this.events,
      other: this.other,
      skipped: this.skipped,
      errors: [...this.errors],
      formats: [...this.formats],
      splitter: this.splitter.state(),
    };
  }

  /** Physical lines seen so far, blank ones included: where a resumed read starts again. */
  get lineNo(): number {
    return this.splitter.lineNo;
  }

  push(chunk: Buffer): void {
    this.splitter.push(chunk, this.onLine, this.onLong);
  }

  end(): void {
    this.splitter.end(this.onLine);
  }

  /** The events read since the last call. */
  take(): TrafficEvent[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  get pendingEvents(): number {
    return this.pending.length;
  }

  private readonly onLong = (lineNo: number) => {
    if (lineNo <= (this.options.skipThrough ?? 0)) return;
    this.lines++;
    this.refuse(lineNo, `longer than ${MAX_LINE_BYTES / 1024} KiB; not read`);
  };

  private readonly onLine = (line: string, lineNo: number) => {
    if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === '')) return;
    if (lineNo <= (this.options.skipThrough ?? 0)) return;
    this.lines++;
    const format = this.options.format === 'auto' ? guessFormat(line) : this.options.format;
    if (format === 'json') parseJsonLine(line, (p) => this.onEntry(p, lineNo, 'json'));
    else this.onEntry(parseCombined(line), lineNo, 'combined');
  };

  private refuse(line: number, reason: string) {
    this.skipped++;
    if (this.errors.length < ERRORS_KEPT) this.errors.push({ line, reason });
  }

  private onEntry(parsed: Parsed, lineNo: number, format: LogFormat) {
    if (typeof parsed === 'string') return this.refuse(lineNo, `${format === 'json' ? 'JSON' : 'combined'}: ${parsed}`);
    this.formats.add(format);
    if (parsed === null) {
      this.other++;
      return;
    }
    if (parsed.time < this.options.oldest || parsed.time > this.options.newest)
      return this.refuse(lineNo, this.options.windowNote);
    const event = this.eventOf(parsed);
    if (!event) {
      this.other++;
      return;
    }
    this.events++;
    this.pending.push(event);
  }

  private dayOf(time: number): string {
    if (!(time >= this.dayStart && time < this.dayStart + DAY_MS)) {
      this.dayStart = time - (time % DAY_MS);
      this.dayText = new Date(this.dayStart).toISOString().slice(0, 10);
    }
    return this.dayText;
  }

  private eventOf(r: LogRecord): TrafficEvent | null {
    const path = pathOf(r.target);
    if (path === null) return null;
    const agent = agentOf(r.userAgent);
    let kind: TrafficEvent['kind'];
    let name: string;
    let verification: Verification = 'unverifiable';
    if (agent) {
      kind = 'agent';
      name = agent;
      verification = this.options.ranges.check(agent, r.ip);
    } else {
      // People are never an agent: a visit counts when an assistant sent it to a page (not a file the page loads).
      if (r.status >= 400 || (r.method !== 'GET' && r.method !== 'HEAD') || isAsset(path)) return null;
      const assistant = assistantOf(r.referer, r.target);
      if (!assistant) return null;
      kind = 'referral';
      name = assistant;
    }
    const identity = `${r.time}\u0001${r.method}\u0001${r.target}\u0001${r.status}\u0001${r.ip ?? ''}\u0001${r.userAgent}\u0001${r.referer ?? ''}`;
    return { kind, day: this.dayOf(r.time), identity, name, path, status: r.status, verification };
  }
}

/** `auto`: a line that opens a JSON object, or an array of them, is JSON; any other is combined (whose client may be `[2001:db8::1]`). */
function guessFormat(line: string): LogFormat {
  let i = 0;
  while (i < line.length && line.charCodeAt(i) <= 32) i++;
  if (line.charCodeAt(i) === 123) return 'json';
  if (line.charCodeAt(i) !== 91) return 'combined';
  i++;
  while (i < line.length && line.charCodeAt(i) <= 32) i++;
  const c = line.charCodeAt(i);
  return c === 123 || c === 93 ? 'json' : 'combined';
}
