import { html } from './html.ts';
import { HTML_TYPE, pageHeaders } from './headers.ts';
import { STYLE_ELEMENT } from './styles.ts';

/** The page for a token that opens nothing: mistyped, unknown and revoked links look the same. */
export function renderNotFoundPage() {
  const body = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <title>Report not found</title>
        ${STYLE_ELEMENT}
      </head>
      <body>
        <main>
          <section class="empty-report">
            <h1>This report link does not work</h1>
            <p class="sub">It may have been mistyped, or the person who shared it has turned it off. Ask them for a new link.</p>
          </section>
        </main>
      </body>
    </html> `;
  return {
    status: 404,
    html: body.value,
    contentType: HTML_TYPE,
    headers: pageHeaders({ imageOrigin: null, cache: 'none' }),
  };
}
