import { Parser } from 'htmlparser2';

/**
 * A page's title read as it downloads with htmlparser2 (a forgiving,
 * streaming HTML parser): `<title>` in the document, else the Open Graph
 * title. Reading stops at `<body>` once a title is known, so a page costs
 * its head, not its whole size.
 */

const TITLE_MAX = 300;

export async function readTitle(chunks: AsyncIterable<Buffer>): Promise<string | null> {
  let title: string | null = null;
  let ogTitle: string | null = null;
  let inTitle = false;
  let text = '';
  let done = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'title' && title === null) {
          inTitle = true;
          text = '';
        } else if (name === 'meta' && ogTitle === null && (attributes.property ?? attributes.name)?.toLowerCase() === 'og:title' && attributes.content) {
          ogTitle = attributes.content;
        } else if (name === 'body' && (title !== null || ogTitle !== null)) done = true;
      },
      ontext(data) {
        if (inTitle && text.length < TITLE_MAX * 4) text += data;
      },
      onclosetag(name) {
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
