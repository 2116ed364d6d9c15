/**
 * Splits a byte stream into lines without ever holding more than one line
 * and one chunk: each chunk is decoded once up to its last newline, the
 * bytes after it are carried to the next chunk, and a line that grows past
 * `maxLineBytes` is dropped as it arrives (its bytes skipped up to the next
 * newline) and reported once, so a log of one endless line or of binary
 * garbage costs linear time and flat memory. `\r\n` endings lose their
 * `\r`; a last line without a newline is a line.
 */

const NEWLINE = 0x0a;

export type LineHandler = (line: string, lineNo: number) => void;

/** Where a splitter is: handed to another splitter (on another thread) that reads on from there. */
export interface SplitterState {
  lineNo: number;
  carry: Uint8Array | null;
  skipping: boolean;
}
export type LongLineHandler = (lineNo: number) => void;

export class LineSplitter {
  private carry: Buffer | null = null;
  /** Dropping an over-long line until its newline. */
  private skipping = false;
  private readonly decoder = new TextDecoder('utf-8');
  /** Lines seen so far, over-long ones included. */
  lineNo = 0;

  private readonly maxLineBytes: number;

  constructor(maxLineBytes: number, from?: SplitterState) {
    this.maxLineBytes = maxLineBytes;
    if (from) {
      this.lineNo = from.lineNo;
      this.carry = from.carry ? Buffer.from(from.carry) : null;
      this.skipping = from.skipping;
    }
  }

  state(): SplitterState {
    return { lineNo: this.lineNo, carry: this.carry ? new Uint8Array(this.carry) : null, skipping: this.skipping };
  }

  push(chunk: Buffer, onLine: LineHandler, onLong: LongLineHandler): void {
    let start = 0;
    if (this.skipping) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl < 0) return;
      this.skipping = false;
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last < start) {
      this.hold(chunk.subarray(start), onLong);
      return;
    }
    let text: string;
    if (this.carry) {
      const first = chunk.indexOf(NEWLINE, start);
      // The carried bytes end with the first line of this chunk: one line, decoded alone.
      const joined = Buffer.concat([this.carry, chunk.subarray(start, first)]);
      this.carry = null;
      if (joined.length > this.maxLineBytes) onLong(++this.lineNo);
      else this.emit(this.decode(joined), onLine);
      start = first + 1;
    }
    if (last >= start) {
      text = this.decode(chunk.subarray(start, last));
      let from = 0;
      for (;;) {
        const nl = text.indexOf('\n', from);
        const end = nl < 0 ? text.length : nl;
        // A line's decoded length bounds its bytes from below; the exact byte count matters only near the cap.
        if (end - from > this.maxLineBytes / 4 && Buffer.byteLength(text.slice(from, end)) > this.maxLineBytes)
          onLong(++this.lineNo);
        else this.emit(text.slice(from, end), onLine);
        if (nl < 0) break;
        from = nl + 1;
      }
    }
    if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1), onLong);
  }

  /** The last line, when the stream did not end with a newline. */
  end(onLine: LineHandler): void {
    if (this.carry && this.carry.length > 0) this.emit(this.decode(this.carry), onLine);
    this.carry = null;
    this.skipping = false;
  }

  private hold(bytes: Buffer, onLong: LongLineHandler): void {
    const size = (this.carry?.length ?? 0) + bytes.length;
    if (size > this.maxLineBytes) {
      this.carry = null;
      this.skipping = true;
      onLong(++this.lineNo);
      return;
    }
    // Copied: the chunk it came from may be reused by its stream.
    this.carry = this.carry ? Buffer.concat([this.carry, bytes]) : Buffer.from(bytes);
  }

  private decode(bytes: Buffer): string {
    return this.decoder.decode(bytes);
  }

  private emit(line: string, onLine: LineHandler): void {
    this.lineNo++;
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    onLine(text, this.lineNo);
  }
}
