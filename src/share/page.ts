import type { SharedReport } from '../domain/shares/index.ts';
import { PERIODS, type Period } from '../domain/common/index.ts';
import { dayLabel, PERIOD_NAMES, periodLabel } from './format.ts';
import { etagOf, HTML_TYPE, logoOrigin, pageHeaders } from './headers.ts';
import { html, SafeHtml } from './html.ts';
import { crawlers } from './crawlers.ts';
import { assistants, cards, changes, charts, ranking, scope, sources } from './sections.ts';
import { STYLE_ELEMENT } from './styles.ts';

/**
 * The public report page of a share link: one site's report for one period,
 * as HTML with SVG charts and no script. It draws what `sharedReport` read
 * and nothing else: no answers, no other site, no workspace data.
 */

const query = (period: Period, start?: string) => `?period=${period}${start ? `&start=${start}` : ''}`;

function switcher(data: SharedReport) {
  const period = data.period;
  const older = data.periods.filter((s) => s < data.start);
  const newer = data.periods.filter((s) => s > data.start);
  const previous = older[older.length - 1];
  const next = newer[0];
  const options = [...new Set([...data.periods, data.start])].sort().reverse();
  return html`<nav class="switcher" aria-label="Period">
    <ul>
      ${PERIODS.map((p) => html`<li><a href="${query(p)}" ${p === period ? new SafeHtml('aria-current="page"') : ''} data-period="${p}">${PERIOD_NAMES[p]}</a></li>`)}
    </ul>
    <div class="steps">
      ${previous ? html`<a rel="prev" href="${query(period, previous)}">← Previous</a>` : html`<span class="off">← Previous</span>`}
      <form method="get" action="">
        <input type="hidden" name="period" value="${period}" />
        <label
          ><span class="muted">Period</span>
          <select name="start" aria-label="Period shown">
            ${options.map((s) => html`<option value="${s}" ${s === data.start ? new SafeHtml('selected') : ''}>${periodLabel(period, s)}</option>`)}
          </select></label
        >
        <button type="submit">Show</button>
      </form>
      ${next ? html`<a rel="next" href="${query(period, next)}">Next →</a>` : html`<span class="off">Next →</span>`}
    </div>
  </nav>`;
}

export function renderSharePage(data: SharedReport) {
  const period = data.period;
  const origin = logoOrigin(data.brand.logo);
  const report = data.report;
  const title = `${data.site.name}: AI visibility, ${periodLabel(period, data.start)}`;
  const body = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · ${data.brand.name}</title>
        ${STYLE_ELEMENT}
      </head>
      <body>
        <main data-period="${period}" data-start="${data.start}">
          <header class="brand">
            ${origin && data.brand.logo ? html`<img src="${data.brand.logo}" alt="${data.brand.name}" width="44" height="44" />` : ''}
            <h1>${data.brand.name}</h1>
          </header>
          <p class="sub">
            How AI assistants answer questions about <strong>${data.site.name}</strong> (${data.site.domain}):
            <strong id="period-label">${periodLabel(period, data.start)}</strong>, against the period before.
          </p>
          ${switcher(data)}
          ${
            report
              ? html`${cards(report)} ${charts(data, report)} ${ranking(report)} ${assistants(report)} ${changes(data, report)} ${sources(report)} ${scope(report)}`
              : html`<section class="empty-report">
                  <h2>No answers yet</h2>
                  <p class="muted">This report fills in once the first questions have been put to the assistants.</p>
                </section>`
          }
          ${crawlers(data.crawlerTraffic)}
          <footer>Report by ${data.brand.name} · periods in UTC, ${dayLabel(data.start)} to ${dayLabel(data.end)} · made with Sightline</footer>
        </main>
      </body>
    </html> `.value;
  return {
    status: 200,
    html: body,
    contentType: HTML_TYPE,
    etag: etagOf(body),
    headers: pageHeaders({ imageOrigin: origin, cache: 'revalidate' }),
  };
}
