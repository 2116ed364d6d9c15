import type { ParsedAnswer } from './types.ts';

/**
 * Postgres text and jsonb cannot hold NUL, so one NUL in one reply would fail
 * the whole batch of answers stored with it. Replies are made storable as
 * they are parsed: each NUL becomes U+FFFD, one UTF-16 unit for another, so
 * citation offsets into the text stay right.
 */

const NUL = '\u0000';

export const withoutNul = (s: string): string => (s.includes(NUL) ? s.replaceAll(NUL, '\uFFFD') : s);

export function storableAnswer(parsed: ParsedAnswer): ParsedAnswer {
  return {
    ...parsed,
    text: withoutNul(parsed.text),
    model: withoutNul(parsed.model),
    citations: parsed.citations.map((c) => ({
      ...c,
      url: withoutNul(c.url),
      title: withoutNul(c.title),
      domain: withoutNul(c.domain),
      ...(c.citedText === undefined ? {} : { citedText: withoutNul(c.citedText) }),
    })),
    searches: parsed.searches.map(withoutNul),
    sources: parsed.sources.map((s) => ({ url: withoutNul(s.url), title: withoutNul(s.title), domain: withoutNul(s.domain) })),
  };
}

/** In JSON a NUL is the escape `\u0000` (JSON.stringify never writes it raw); after an escaped backslash (`\\u0000`) it is plain text. */
const NUL_ESCAPE = /(?<!\\)((?:\\\\)*)\\u0000/g;

export const jsonWithoutNul = (json: string): string => (json.includes('\\u0000') ? json.replace(NUL_ESCAPE, '$1\\ufffd') : json);
