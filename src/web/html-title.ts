import { Parser } from 'htmlparser2';
import { collect } from './collect.ts';

/**
 * A page's title read with htmlparser2 (a forgiving, streaming HTML
 * parser), a piece at a time: `<title>` in the document, else the Open
 * Graph title. Reading stops at `<body>` once a title is known, so a page
 * costs its head, not its whole size. Jobs run it on a parsing thread
 * (./site-file-pool.ts).
 *
 * htmlparser2 keeps the open elements in an array it adds to at the front
 * and searches at every end tag, so its time grows with the square of the
 * nesting: 1 MB of `<div>` took 11 s. Reading stops, with what was found,
 * once elements nest deeper than TITLE_MAX_DEPTH (a title sits at depth 2 or
 * 3), which keeps each of those steps short, or an element has more than
 * TITLE_MAX_ATTRIBUTES attributes.
 */

const TITLE_MAX = 300;
export const TITLE_MAX_DEPTH = 64;
/** Attributes of one element: htmlparser2 gathers them in one object before the tag is seen. */
export const TITLE_MAX_ATTRIBUTES = 256;

export async function readTitle(chunks: AsyncIterable<Uint8Array>): Promise<string | null> {
  let title: string | null = null;
  let ogTitle: string | null = null;
  let inTitle = false;
  let text = '';
  let done = false;
  let depth = 0;
  let attributes = 0;
  const stop = () => {
    done = true;
    // Stops the rest of this piece too: write() returns at once.
    parser.pause();
  };
  const parser: Parser = new Parser(
    {
      onopentagname() {
        attributes = 0;
        if (++depth > TITLE_MAX_DEPTH) stop();
      },
      onattribute() {
        if (++attributes > TITLE_MAX_ATTRIBUTES) stop();
      },
      onopentag(name, attributes) {
        if (name === 'title' && title === null) {
          inTitle = true;
          text = '';
        } else if (
          name === 'meta' &&
          ogTitle === null &&
          (attributes.property ?? attributes.name)?.toLowerCase() === 'og:title' &&
          attributes.content
        ) {
          ogTitle = attributes.content.slice(0, TITLE_MAX * 4);
        } else if (name === 'body' && (title !== null || ogTitle !== null)) done = true;
      },
      ontext(data) {
        if (inTitle && text.length < TITLE_MAX * 4) text += data;
      },
      onclosetag(name) {
        depth--;
        if (name === 'title' && inTitle) {
          inTitle = false;
          title = text;
        } else if (name === 'head' && title !== null) done = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    parser.write(decoder.decode(chunk, { stream: true }));
    if (done) break;
  }
  if (!done) parser.end();
  const clean = (s: string | null) => {
    const t = (s ?? '').replace(/\s+/g, ' ').trim();
    return t === '' ? null : t.slice(0, TITLE_MAX);
  };
  return clean(title) ?? clean(ogTitle);
}

/** The end of a head: `</head>` or `<body>` (with attributes, or a space before `>`). */
const HEAD_END = /<\/head[\s>]|<body[\s>/]/i;

/**
 * A page's bytes up to the piece where its head ends (the rest is never
 * downloaded), for readTitle on a parsing thread. A title only in the body
 * is not read; the fetch's size cap bounds a page whose head never ends.
 * The search is a plain pattern over each piece (with the end of the one
 * before, for a tag cut in two): linear in the page.
 */
export function headBytes(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  async function* untilHeadEnds() {
    let carry = '';
    for await (const chunk of chunks) {
      yield chunk;
      const text = carry + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      if (HEAD_END.test(text)) return;
      carry = text.slice(-6);
    }
  }
  return collect(untilHeadEnds());
}
