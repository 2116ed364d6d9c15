/**
 * llms.txt (llmstxt.org): a Markdown file at the site's root that tells
 * language models what the site is and where its useful pages are. The one
 * required part is a first heading `# Name`; then an optional `> summary`,
 * and `## Section` lists of `[title](url)` links. A file that is HTML (a
 * "not found" page answered with 200), empty, or without that first heading
 * is `invalid`: an assistant reading it learns nothing.
 */

export type LlmsTxtState = 'present' | 'missing' | 'invalid';

/** Real files are a few KB; llms-full.txt is the one meant to be large. */
export const LLMS_TXT_MAX_BYTES = 1 << 20;
/** Links counted per file at most: real files list tens to hundreds; counting stops here and the note says so. */
export const LLMS_TXT_MAX_LINKS = 10_000;

export interface LlmsTxtReading {
  state: 'present' | 'invalid';
  /** The `# Name` heading, when present. */
  title: string | null;
  /** Markdown links listed (at most LLMS_TXT_MAX_LINKS). */
  links: number;
  /** Why it is invalid, or a remark on a present file. */
  note: string | null;
}

/** `\s` of a regex, for one character (ASCII answered without the regex engine). */
const isSpace = (code: number) =>
  code < 128 ? code === 32 || (code >= 9 && code <= 13) : /\s/.test(String.fromCharCode(code));

/**
 * Counts what the regex `/\[[^\]\n]*\]\([^)\s]+(?:\s+"[^"]*")?\)/g` would
 * match, in one pass. The regex itself restarts at every `[` and rescans to
 * the end of the line from each, so a line of `[` cost its length squared
 * (a 1 MiB file held the thread for minutes). Here every search moves a
 * cursor that only goes forward:
 *
 * - every `[` before the same `]` (or newline) ends its link text there, so
 *   the run from one `[` to that `]` is one attempt, not one per `[`;
 * - the rest (`(url "title")`) is tried once per such `]`, and its scans
 *   (to the end of the URL, the spaces, the closing quote) ask "the first
 *   position at or after p where ...", with p never decreasing: each is a
 *   pointer that moves forward, so the whole count is linear in the text.
 */
export function countLinks(text: string, max = LLMS_TXT_MAX_LINKS): { links: number; capped: boolean } {
  const n = text.length;
  const test = {
    close: (c: number) => c === 0x5d || c === 0x0a, // ] or a newline
    urlEnd: (c: number) => c === 0x29 || isSpace(c), // )
    nonSpace: (c: number) => !isSpace(c),
    quote: (c: number) => c === 0x22,
  };
  // The last answer of each search; a later p at or before it has the same answer, since nothing between matched.
  const found = { close: -1, urlEnd: -1, nonSpace: -1, quote: -1 };
  const first = (kind: keyof typeof test, p: number): number => {
    if (p <= found[kind]) return found[kind];
    const is = test[kind];
    let i = p;
    while (i < n && !is(text.charCodeAt(i))) i++;
    return (found[kind] = i);
  };

  let links = 0;
  let at = 0;
  while (at < n && links <= max) {
    const open = text.indexOf('[', at);
    if (open < 0) break;
    const close = first('close', open + 1);
    const end = close < n && text[close] === ']' ? linkTail(text, close + 1, first) : -1;
    if (end < 0) {
      at = close + 1;
      continue;
    }
    links++;
    at = end;
  }
  return links > max ? { links: max, capped: true } : { links, capped: false };
}

/** `([^)\s]+(?:\s+"[^"]*")?\)` at `p`: the index after the `)`, or -1. */
function linkTail(
  text: string,
  p: number,
  first: (kind: 'urlEnd' | 'nonSpace' | 'quote', p: number) => number,
): number {
  if (text[p] !== '(') return -1;
  const urlEnd = first('urlEnd', p + 1);
  if (urlEnd === p + 1 || urlEnd >= text.length) return -1;
  if (text[urlEnd] === ')') return urlEnd + 1;
  // A space after the URL: only a quoted title, then `)`, can follow.
  const quote = first('nonSpace', urlEnd);
  if (text[quote] !== '"') return -1;
  const closing = first('quote', quote + 1);
  return text[closing] === '"' && text[closing + 1] === ')' ? closing + 2 : -1;
}

export function readLlmsTxt(text: string, contentType: string | null): LlmsTxtReading {
  const invalid = (note: string): LlmsTxtReading => ({ state: 'invalid', title: null, links: 0, note });
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const first = body.split(/\r\n|\r|\n/).find((l) => l.trim() !== '');
  if (first === undefined) return invalid('llms.txt is empty');
  if (type === 'text/html' || /^\s*<(!doctype|html|head|body)\b/i.test(first))
    return invalid('llms.txt is an HTML page, not Markdown (often a "not found" page answered with status 200)');
  if (body.includes('\u0000')) return invalid('llms.txt is not text');
  const heading = /^#\s+(\S.*)$/.exec(first.trim());
  if (!heading) return invalid('llms.txt must start with a "# Name" heading (llmstxt.org)');
  const { links, capped } = countLinks(body);
  const note = capped
    ? `llms.txt lists more than ${LLMS_TXT_MAX_LINKS.toLocaleString('en-US')} links; only the first ${LLMS_TXT_MAX_LINKS.toLocaleString('en-US')} were counted`
    : links === 0
      ? 'llms.txt lists no links'
      : null;
  return { state: 'present', title: (heading[1] as string).trim().slice(0, 200), links, note };
}
