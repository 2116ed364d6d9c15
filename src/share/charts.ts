import { html, type SafeHtml } from './html.ts';

/**
 * Server-rendered SVG charts: the page needs no script (its CSP allows
 * none). Colours and sizes are presentation attributes, not style
 * attributes, which the CSP would block.
 */

export interface ChartPoint {
  /** Axis label. */
  label: string;
  /** Tooltip label. */
  title: string;
  /** 0 to 100, null when the period had no answers. */
  value: number | null;
  /** The value's 95% interval, drawn as a band around the line; null or absent without one. */
  low?: number | null;
  high?: number | null;
  current: boolean;
}

const W = 480;
const H = 220;
const LEFT = 40;
const RIGHT = 18;
const TOP = 14;
const BOTTOM = 34;
const PLOT_H = H - TOP - BOTTOM;
const GRID = [0, 25, 50, 75, 100];

const round = (n: number) => Math.round(n * 10) / 10;
const yOf = (value: number) => round(TOP + PLOT_H - (PLOT_H * Math.max(0, Math.min(100, value))) / 100);

/** A percentage over periods: one line, broken where a period had no answers, a dot per period with data. */
export function lineChart(options: { id: string; label: string; color: string; points: ChartPoint[] }): SafeHtml {
  const { points } = options;
  const step = points.length > 1 ? (W - LEFT - RIGHT) / (points.length - 1) : 0;
  const xOf = (i: number) => round(points.length > 1 ? LEFT + i * step : (LEFT + W - RIGHT) / 2);
  let d = '';
  let drawing = false;
  points.forEach((p, i) => {
    if (p.value === null) {
      drawing = false;
      return;
    }
    d += `${drawing ? 'L' : 'M'}${xOf(i)} ${yOf(p.value)} `;
    drawing = true;
  });
  // The band: each run of periods with an interval, along the highs and back along the lows.
  let band = '';
  let run: number[] = [];
  const closeRun = () => {
    if (run.length > 0) {
      const top = run.map((i, k) => `${k === 0 ? 'M' : 'L'}${xOf(i)} ${yOf(points[i]?.high as number)}`);
      const bottom = [...run].reverse().map((i) => `L${xOf(i)} ${yOf(points[i]?.low as number)}`);
      band += `${[...top, ...bottom].join(' ')} Z `;
    }
    run = [];
  };
  points.forEach((p, i) => {
    if (p.value === null || p.low === null || p.low === undefined || p.high === null || p.high === undefined)
      closeRun();
    else run.push(i);
  });
  closeRun();
  const withData = points.filter((p) => p.value !== null).length;
  const summary = `${options.label} by period: ${points.map((p) => `${p.title} ${p.value === null ? 'no answers' : `${p.value.toFixed(1)}%`}`).join('; ')}`;
  return html`<svg
    class="chart"
    data-chart="${options.id}"
    viewBox="0 0 ${W} ${H}"
    width="${W}"
    height="${H}"
    role="img"
    aria-label="${summary}"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title>${options.label}</title>
    ${GRID.map(
      (g) =>
        html`<line class="grid" x1="${LEFT}" x2="${W - RIGHT}" y1="${yOf(g)}" y2="${yOf(g)}" stroke="#e5e7eb" stroke-width="1" />
          <text class="axis" x="${LEFT - 8}" y="${yOf(g) + 4}" text-anchor="end" font-size="11" fill="#6b7280">${g}%</text>`,
    )}
    ${points.map((p, i) => html`<text class="axis" x="${xOf(i)}" y="${H - 12}" text-anchor="middle" font-size="11" fill="${p.current ? '#111827' : '#6b7280'}" font-weight="${p.current ? '600' : '400'}">${p.label}</text>`)}
    ${band ? html`<path class="band" data-band="${options.id}" d="${band.trim()}" fill="${options.color}" fill-opacity="0.15" stroke="none" />` : ''}
    ${d ? html`<path class="line" d="${d.trim()}" fill="none" stroke="${options.color}" stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round" />` : ''}
    ${points.map((p, i) =>
      p.value === null
        ? ''
        : html`<circle
            class="point${p.current ? ' current' : ''}"
            cx="${xOf(i)}"
            cy="${yOf(p.value)}"
            r="${p.current ? 5 : 3.5}"
            fill="${p.current ? options.color : '#ffffff'}"
            stroke="${options.color}"
            stroke-width="2"
            ><title>
              ${p.title}:
              ${p.value.toFixed(1)}%${p.low === null || p.low === undefined || p.high === null || p.high === undefined ? '' : ` (95% range ${p.low.toFixed(1)}–${p.high.toFixed(1)}%)`}
            </title></circle
          >`,
    )}
    ${withData === 0 ? html`<text class="empty" x="${W / 2}" y="${TOP + PLOT_H / 2}" text-anchor="middle" font-size="13" fill="#6b7280">No answers in these periods</text>` : ''}
  </svg>`;
}

/** A 0-100 bar for a table cell. */
export function bar(value: number | null, color: string, label: string): SafeHtml {
  const width = value === null ? 0 : round(Math.max(0, Math.min(100, value)) * 1.2);
  return html`<svg class="bar" viewBox="0 0 120 10" width="120" height="10" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg">
    <rect x="0" y="0" width="120" height="10" rx="3" fill="#f1f5f9" />
    <rect class="fill" x="0" y="0" width="${width}" height="10" rx="3" fill="${color}" />
  </svg>`;
}
