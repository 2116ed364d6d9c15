import type { ParsedAnswer } from './types.ts';

/**
 * Postgres text and jsonb hold neither NUL nor half a surrogate pair (JSON
 * may escape one alone, "\ud83d", and JavaScript keeps it), so one such
 * character in one reply would fail the whole batch of answers stored with
 * it, and the scan with it. Replies are made storable as they are parsed:
 * each becomes U+FFFD, one UTF-16 unit for another, so citation offsets into
 * the text stay right.
 */

const NUL = '\u0000';

export const storableText = (s: string): string => {
  const out = s.includes(NUL) ? s.replaceAll(NUL, '\uFFFD') : s;
  return out.isWellFormed() ? out : out.toWellFormed();
};

export function storableAnswer(parsed: ParsedAnswer): ParsedAnswer {
  return {
    ...parsed,
    text: storableText(parsed.text),
    model: storableText(parsed.model),
    citations: parsed.citations.map((c) => ({
      ...c,
      url: storableText(c.url),
      title: storableText(c.title),
      domain: storableText(c.domain),
      ...(c.citedText === undefined ? {} : { citedText: storableText(c.citedText) }),
    })),
    searches: parsed.searches.map(storableText),
    sources: parsed.sources.map((s) => ({
      url: storableText(s.url),
      title: storableText(s.title),
      domain: storableText(s.domain),
    })),
  };
}

/**
 * The same for JSON text as JSON.stringify writes it: a NUL is the escape
 * `\u0000`, and a lone surrogate the only `\ud800`-`\udfff` escape it
 * writes (a pair is written as itself); after an escaped backslash
 * (`\\u0000`) the letters are plain text.
 */
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;

export const storableJson = (json: string): string =>
  json.includes('\\u') ? json.replace(UNSTORABLE_ESCAPE, '$1\\ufffd') : json;
