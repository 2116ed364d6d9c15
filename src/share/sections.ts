import type { SharedReport } from '../domain/shares/index.ts';
import { bar, lineChart, type ChartPoint } from './charts.ts';
import { count, percent, periodLabel, plural, points, range, rank, shortPeriodLabel, trend } from './format.ts';
import { html } from './html.ts';

/** The parts of the share page that draw the report itself, each from one part of `siteReport`'s answer. */

export type Report = NonNullable<SharedReport['report']>;

const BRAND_COLOR = '#4f46e5';
const SOV_COLOR = '#0891b2';
const OTHER_COLOR = '#94a3b8';
/** Prompts listed per side of "what changed"; the rest are counted. */
const CHANGES_LISTED = 10;

const SITE_TYPE_NAMES: Record<string, string> = {
  own: 'Own site',
  competitor: 'Competitor',
  ugc: 'Forum',
  review: 'Reviews',
  news: 'News',
  reference: 'Reference',
  social: 'Social',
  video: 'Video',
  other: 'Other',
};

/** "within noise" when a change is no larger than its noise (docs/analysis.md "Real changes"). */
const noise = (real: boolean | null | undefined) => (real === false ? ' (within noise)' : '');

/** A share's 95% interval after its value, " (35.1–49.0%)"; nothing without one. */
function interval(low: number | null, high: number | null, id: string) {
  return low === null || high === null
    ? ''
    : html` <span class="muted" data-interval="${id}">(${range(low, high)})</span>`;
}

function card(
  label: string,
  value: string,
  change: string,
  direction: 'up' | 'down' | 'flat',
  id: string,
  interval = '',
) {
  return html`<div class="card" data-metric="${id}">
    <div class="label">${label}</div>
    <div class="value">${value}</div>
    ${interval ? html`<div class="muted" data-interval="${id}">95% range ${interval}</div>` : ''}
    <div class="${direction}">${change || 'no change to compare'}</div>
  </div>`;
}

export function cards(report: Report) {
  const { current, change } = report;
  return html`<div class="cards">
    ${card(
      'Visibility',
      percent(current.visibility),
      points(change.visibility) + noise(change.visibilityReal),
      trend(change.visibility),
      'visibility',
      range(current.visibilityLow, current.visibilityHigh),
    )}
    ${card(
      'Share of voice',
      percent(current.shareOfVoice),
      points(change.shareOfVoice) + noise(change.shareOfVoiceReal),
      trend(change.shareOfVoice),
      'shareOfVoice',
      range(current.shareOfVoiceLow, current.shareOfVoiceHigh),
    )}
    ${card('Average rank', rank(current.brandRank), change.brandRank === null ? '' : `${change.brandRank > 0 ? '+' : change.brandRank < 0 ? '−' : '±'}${Math.abs(change.brandRank).toFixed(1)}`, trend(change.brandRank, true), 'brandRank')}
    ${card('Answers read', count(current.answered), `${change.answers >= 0 ? '+' : '−'}${count(Math.abs(change.answers))} answers`, 'flat', 'answers')}
  </div>`;
}

export function charts(data: SharedReport, report: Report) {
  const period = data.period;
  type Point = Report['series'][number];
  const series = (pick: (p: Point) => [value: number | null, low: number | null, high: number | null]): ChartPoint[] =>
    report.series.map((p) => {
      const [value, low, high] = pick(p);
      return {
        label: shortPeriodLabel(period, p.start),
        title: periodLabel(period, p.start),
        value,
        low,
        high,
        current: p.start === data.start,
      };
    });
  return html`<div class="charts">
    <section>
      <h2>Visibility over time</h2>
      <p class="muted">Share of answers that name ${data.site.name}; the shaded band is its 95% range.</p>
      ${lineChart({ id: 'visibility', label: 'Visibility', color: BRAND_COLOR, points: series((p) => [p.visibility, p.visibilityLow, p.visibilityHigh]) })}
    </section>
    <section>
      <h2>Share of voice over time</h2>
      <p class="muted">${data.site.name}'s mentions among all tracked brands' mentions.</p>
      ${lineChart({ id: 'shareOfVoice', label: 'Share of voice', color: SOV_COLOR, points: series((p) => [p.shareOfVoice, p.shareOfVoiceLow, p.shareOfVoiceHigh]) })}
    </section>
  </div>`;
}

export function ranking(report: Report) {
  return html`<section data-section="ranking">
    <h2>Brand ranking</h2>
    <table>
      <thead>
        <tr>
          <th>#</th>
          <th>Brand</th>
          <th colspan="2">Visibility</th>
          <th class="num">Change</th>
          <th class="num">Share of voice</th>
          <th class="num">Mentions</th>
        </tr>
      </thead>
      <tbody>
        ${report.ranking.map((r) => {
          const delta =
            r.visibility === null || r.previousVisibility === null
              ? null
              : Math.round((r.visibility - r.previousVisibility) * 10) / 10;
          return html`<tr class="${r.kind}">
            <td>${r.rank}</td>
            <td>${r.name}${r.kind === 'brand' ? html` <span class="tag">you</span>` : ''}</td>
            <td>${bar(r.visibility, r.kind === 'brand' ? BRAND_COLOR : OTHER_COLOR, `${r.name} visibility ${percent(r.visibility)}`)}</td>
            <td class="num">${percent(r.visibility)}${interval(r.visibilityLow, r.visibilityHigh, `ranking-visibility-${r.rank}`)}</td>
            <td class="num ${trend(delta)}">${points(delta)}</td>
            <td class="num">${percent(r.shareOfVoice)}${interval(r.shareOfVoiceLow, r.shareOfVoiceHigh, `ranking-shareOfVoice-${r.rank}`)}</td>
            <td class="num">${count(r.mentioned)}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </section>`;
}

export function assistants(report: Report) {
  if (report.providers.length === 0) return '';
  return html`<section data-section="assistants">
    <h2>By assistant</h2>
    <table>
      <thead>
        <tr>
          <th>Assistant</th>
          <th class="num">Answers</th>
          <th class="num">Visibility</th>
          <th class="num">Change</th>
          <th class="num">Share of voice</th>
          <th class="num">Average rank</th>
          <th class="num">Own pages cited</th>
        </tr>
      </thead>
      <tbody>
        ${report.providers.map(
          (p) =>
            html`<tr data-provider="${p.provider}">
              <td>${p.name}</td>
              <td class="num">${count(p.answered)}</td>
              <td class="num">${percent(p.visibility)}${p.visibilityLow === null ? '' : html` <span class="muted">(${range(p.visibilityLow, p.visibilityHigh)})</span>`}</td>
              <td class="num ${trend(p.change.visibility)}">${points(p.change.visibility)}${noise(p.change.visibilityReal)}</td>
              <td class="num">${percent(p.shareOfVoice)}${interval(p.shareOfVoiceLow, p.shareOfVoiceHigh, `assistant-shareOfVoice-${p.provider}`)}</td>
              <td class="num">${rank(p.brandRank)}</td>
              <td class="num">${count(p.ownCited)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

export function sources(report: Report) {
  return html`<section data-section="sources">
    <h2>Most cited sources</h2>
    ${
      report.topSources.length === 0
        ? html`<p class="muted">No sources were cited in this period.</p>`
        : html`<table>
            <thead>
              <tr>
                <th>Domain</th>
                <th>Type</th>
                <th class="num">Answers citing it</th>
                <th class="num">Of those, naming the brand</th>
              </tr>
            </thead>
            <tbody>
              ${report.topSources.map(
                (s) =>
                  html`<tr>
                    <td>${s.domain}</td>
                    <td>${SITE_TYPE_NAMES[s.siteType] ?? s.siteType}</td>
                    <td class="num">${count(s.count)}</td>
                    <td class="num">${percent(s.namesBrand)}${interval(s.namesBrandLow, s.namesBrandHigh, `source-namesBrand-${s.domain}`)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

function promptList(title: string, list: { text: string; real: boolean }[], empty: string, id: string) {
  const shown = list.slice(0, CHANGES_LISTED);
  return html`<div data-changes="${id}">
    <h3>${title} (${list.length})</h3>
    ${
      shown.length === 0
        ? html`<p class="muted">${empty}</p>`
        : html`<ul>
            ${shown.map((p) => html`<li>${p.text}${p.real ? '' : html` <span class="muted">(within noise)</span>`}</li>`)}
          </ul>`
    }${list.length > shown.length ? html`<p class="muted">and ${list.length - shown.length} more</p>` : ''}
  </div>`;
}

export function changes(data: SharedReport, report: Report) {
  const period = data.period;
  const { change, current, previous } = report;
  return html`<section data-section="changes">
    <h2>What changed since ${periodLabel(period, report.previousStart)}</h2>
    <p>
      Visibility ${percent(previous.visibility)} → ${percent(current.visibility)}
      <span class="${trend(change.visibility)}">${points(change.visibility)}${noise(change.visibilityReal)}</span>; share of voice ${percent(previous.shareOfVoice)} →
      ${percent(current.shareOfVoice)} <span class="${trend(change.shareOfVoice)}">${points(change.shareOfVoice)}${noise(change.shareOfVoiceReal)}</span>; average rank
      ${rank(previous.brandRank)} → ${rank(current.brandRank)}; answers ${count(previous.answered)} → ${count(current.answered)}.
    </p>
    <div class="lists">
      ${promptList('Questions won', report.changes.won, 'No question newly names the brand.', 'won')}
      ${promptList('Questions lost', report.changes.lost, 'No question stopped naming the brand.', 'lost')}
    </div>
  </section>`;
}

export function scope(report: Report) {
  if (!report.scope) return '';
  const s = report.scope;
  const names = s.assistants.map((a) => a.name).join(', ');
  return html`<p class="muted" data-section="scope">
    Measured on ${plural(s.questions, 'question')} asked to
    ${names || 'no assistant'}${s.answersPerQuestion === null ? '' : `, ${plural(s.answersPerQuestion, 'answer')} per question`}; place ${s.place}, language ${s.language}.
  </p>`;
}
