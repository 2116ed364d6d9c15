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

export interface LlmsTxtReading {
  state: 'present' | 'invalid';
  /** The `# Name` heading, when present. */
  title: string | null;
  /** Markdown links listed. */
  links: number;
  /** Why it is invalid, or a remark on a present file. */
  note: string | null;
}

const LINK = /\[[^\]\n]*\]\([^)\s]+(?:\s+"[^"]*")?\)/g;

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
  const links = body.match(LINK)?.length ?? 0;
  return { state: 'present', title: (heading[1] as string).trim().slice(0, 200), links, note: links === 0 ? 'llms.txt lists no links' : null };
}
