import type { SharedReport } from '../domain/shares/index.ts';
import { count, percent, plural, range } from './format.ts';
import { html } from './html.ts';

/**
 * The "AI crawlers" section of the share page, from the site's imported
 * server logs (domain/traffic): per AI agent its hits, pages and the share
 * verified against its published ranges (with its 95% range), the visits
 * assistants sent, and the join with citations: pages crawled that no
 * answer cites, pages cited that no crawler fetched.
 */

type Traffic = SharedReport['crawlerTraffic'];

/** Agents and pages listed; the rest are counted. */
const AGENTS_LISTED = 12;
const PAGES_LISTED = 5;

function pageList(title: string, items: { label: string; detail: string }[], total: number, empty: string, id: string) {
  return html`<div data-traffic="${id}">
    <h3>${title} (${count(total)})</h3>
    ${
      items.length === 0
        ? html`<p class="muted">${empty}</p>`
        : html`<ul>
            ${items.slice(0, PAGES_LISTED).map((p) => html`<li>${p.label} <span class="muted">${p.detail}</span></li>`)}
          </ul>`
    }${total > PAGES_LISTED ? html`<p class="muted">and ${count(total - Math.min(PAGES_LISTED, items.length))} more</p>` : ''}
  </div>`;
}

export function crawlers(traffic: Traffic) {
  if (traffic.totals.hits === 0 && traffic.referrals.visits === 0)
    return html`<section data-section="crawlers">
      <h2>AI crawlers</h2>
      <p class="muted">No server log covers this period: import one to see what AI crawlers read and who assistants send.</p>
    </section>`;
  const shown = traffic.agents.slice(0, AGENTS_LISTED);
  return html`<section data-section="crawlers">
    <h2>AI crawlers</h2>
    <p class="muted">
      From the site’s server logs: ${plural(traffic.totals.hits, 'hit')} by AI agents on ${plural(traffic.totals.pages, 'page')}; ${plural(traffic.referrals.visits, 'visit')} sent
      by assistants.
    </p>
    <table>
      <thead>
        <tr>
          <th>Agent</th>
          <th>Company</th>
          <th class="num">Hits</th>
          <th class="num">Pages</th>
          <th class="num">Verified</th>
          <th class="num">Errors</th>
        </tr>
      </thead>
      <tbody>
        ${shown.map(
          (a) =>
            html`<tr data-agent="${a.agent}">
              <td>${a.agent}</td>
              <td>${a.company ?? ''}</td>
              <td class="num">${count(a.hits)}</td>
              <td class="num">${count(a.pages)}</td>
              <td class="num">${percent(a.verified)}${a.verifiedLow === null ? '' : html` <span class="muted">(${range(a.verifiedLow, a.verifiedHigh)})</span>`}</td>
              <td class="num">${count(a.status.clientError + a.status.serverError)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${traffic.agents.length > shown.length ? html`<p class="muted">and ${plural(traffic.agents.length - shown.length, 'other agent')}</p>` : ''}
    ${
      traffic.referrals.assistants.length
        ? html`<h3>Visits sent by assistants</h3>
            <ul data-traffic="referrals">
              ${traffic.referrals.assistants.map((a) => html`<li>${a.assistant}: ${plural(a.visits, 'visit')}</li>`)}
            </ul>`
        : ''
    }
    <div class="lists">
      ${pageList(
        'Crawled, not cited',
        traffic.crawledNotCited.map((p) => ({ label: p.title ?? p.path, detail: `${plural(p.hits, 'hit')}` })),
        traffic.crawledNotCitedTotal,
        'Every page the crawlers read is cited.',
        'crawledNotCited',
      )}
      ${pageList(
        'Cited, not crawled',
        traffic.citedNotCrawled.map((p) => ({
          label: p.title ?? p.path ?? p.url,
          detail: `cited by ${plural(p.answers, 'answer')}`,
        })),
        traffic.citedNotCrawledTotal,
        'Every cited page was crawled.',
        'citedNotCrawled',
      )}
    </div>
  </section>`;
}
