import type { Parsed } from './record.ts';

/**
 * The combined log format of nginx and Apache (and the common log format,
 * its first seven fields):
 *
 *   host ident user [10/Oct/2026:13:55:36 +0000] "GET /path HTTP/1.1" 200 2326 "referer" "user agent"
 *
 * Read by hand, left to right with indexOf, never a backtracking regex: a
 * line costs time linear in its length whatever it holds. Quotes inside a
 * quoted field are escaped by the server (`\"` by Apache, `\x22` by nginx);
 * fields after the user agent (nginx's `$http_x_forwarded_for`...) are
 * ignored.
 */

const MONTHS: Readonly<Record<string, number>> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    v = v * 10 + c;
  }
  return v;
}

/** `10/Oct/2026:13:55:36 +0000` as milliseconds since the epoch; NaN when it is not one. */
export function clfTime(s: string): number {
  if (s.length < 20 || s[2] !== '/' || s[6] !== '/' || s[11] !== ':' || s[14] !== ':' || s[17] !== ':') return NaN;
  const month = MONTHS[s.slice(3, 6)];
  if (month === undefined) return NaN;
  const [day, year, hour, minute, second] = [
    digits(s, 0, 2),
    digits(s, 7, 4),
    digits(s, 12, 2),
    digits(s, 15, 2),
    digits(s, 18, 2),
  ];
  if (!(day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 60 && year >= 1970)) return NaN;
  let offset = 0;
  if (s.length >= 26 && s[20] === ' ') {
    const sign = s[21] === '-' ? -1 : s[21] === '+' ? 1 : 0;
    const hh = digits(s, 22, 2);
    const mm = digits(s, 24, 2);
    if (!sign || Number.isNaN(hh) || Number.isNaN(mm)) return NaN;
    offset = sign * (hh * 60 + mm) * 60_000;
  }
  return Date.UTC(year, month, day, hour, minute, second) - offset;
}

/** Where the quoted field opened just before `from` ends: the next `"` not escaped by an odd run of backslashes. */
function closingQuote(line: string, from: number): number {
  for (let at = from; ;) {
    const q = line.indexOf('"', at);
    if (q < 0) return -1;
    let slashes = 0;
    while (q - slashes - 1 >= from && line.charCodeAt(q - slashes - 1) === 92) slashes++;
    if (slashes % 2 === 0) return q;
    at = q + 1;
  }
}

/** Consecutive lines share a second more often than not: the last time read is kept. */
let lastTimeText = '';
let lastTime = NaN;

export function parseCombined(line: string): Parsed {
  const sp = line.indexOf(' ');
  if (sp <= 0) return 'not a combined log line: no client address';
  const open = line.indexOf('[', sp);
  if (open < 0) return 'not a combined log line: no [time]';
  const close = line.indexOf(']', open);
  if (close < 0) return 'not a combined log line: the [time] is not closed';
  const timeText = line.slice(open + 1, close);
  if (timeText !== lastTimeText) {
    lastTime = clfTime(timeText);
    lastTimeText = timeText;
  }
  const time = lastTime;
  if (Number.isNaN(time)) return 'the time is not written dd/Mon/yyyy:HH:MM:SS +zone';
  let at = close + 1;
  while (line.charCodeAt(at) === 32) at++;
  if (line.charCodeAt(at) !== 34) return 'not a combined log line: no "request" after the time';
  const requestEnd = closingQuote(line, at + 1);
  if (requestEnd < 0) return 'not a combined log line: the "request" is not closed';
  const request = line.slice(at + 1, requestEnd);
  at = requestEnd + 1;
  while (line.charCodeAt(at) === 32) at++;
  const status = digits(line, at, 3);
  if (!(status >= 100 && status <= 599) || (at + 3 < line.length && line.charCodeAt(at + 3) !== 32))
    return 'the status is not a three-digit HTTP status';
  // The response size, then the optional referer and user agent (common log format has neither).
  let referer: string | null = null;
  let userAgent = '';
  const refOpen = line.indexOf('"', at + 3);
  if (refOpen >= 0) {
    const refClose = closingQuote(line, refOpen + 1);
    if (refClose < 0) return 'not a combined log line: the "referer" is not closed';
    const ref = line.slice(refOpen + 1, refClose);
    referer = ref === '-' || ref === '' ? null : ref;
    const uaOpen = line.indexOf('"', refClose + 1);
    if (uaOpen >= 0) {
      const uaClose = closingQuote(line, uaOpen + 1);
      if (uaClose < 0) return 'not a combined log line: the "user agent" is not closed';
      userAgent = line.slice(uaOpen + 1, uaClose);
      if (userAgent === '-') userAgent = '';
    }
  }
  // "METHOD target PROTOCOL"; "-" or junk (a timed-out or binary request) is a line, but no request to count.
  const methodEnd = request.indexOf(' ');
  if (methodEnd <= 0) return null;
  const protocolAt = request.lastIndexOf(' ');
  const target =
    protocolAt > methodEnd && request.startsWith('HTTP/', protocolAt + 1)
      ? request.slice(methodEnd + 1, protocolAt)
      : request.slice(methodEnd + 1);
  if (target === '') return null;
  const ip = line.slice(0, sp);
  return { time, method: request.slice(0, methodEnd), target, status, ip: ip === '-' ? null : ip, userAgent, referer };
}
