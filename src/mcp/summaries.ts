import type { siteCompetitors, siteReport, siteSentiment, siteSources, siteTrends } from '../domain/reports/index.ts';
import type { promptAnswer, promptDetail, listPrompts } from '../domain/prompts/index.ts';
import type { cancelScan, estimateScan, listScans, liveScan, scanDetail, startScan } from '../domain/scans/index.ts';
import type { siteWithDetails } from '../domain/site-settings/index.ts';
import type { listSites } from '../domain/sites/index.ts';
import type { listShares } from '../domain/shares/index.ts';
import type { addMentionFeedback, listNames } from '../domain/names/index.ts';
import type { whoami } from '../domain/orgs/index.ts';
import type { crawlerTrafficReport } from '../domain/traffic/index.ts';

/**
 * The short text a tool result opens with, for clients that show text only;
 * the whole answer is in its structured content. Tools without their own
 * summary get one listing what the answer holds.
 */

type Result<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
type Summary = (body: unknown) => string;

/** A summary of one route's answer: the tool's call hands it exactly what that route's handler returned. */
const of =
  <T>(fn: (body: T) => string): Summary =>
  (body) =>
    fn(body as T);

const pct = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${v}%`);
const signed = (v: number | null | undefined, unit = ' pts') =>
  v === null || v === undefined ? '' : ` (${v > 0 ? '+' : ''}${v}${unit})`;
/** A share with its 95% interval: "42% (95% range 35.1-49%)". */
const withRange = (v: number | null | undefined, low: number | null | undefined, high: number | null | undefined) =>
  low === null || low === undefined || high === null || high === undefined
    ? pct(v)
    : `${pct(v)} (95% range ${low}-${high}%)`;
const noise = (real: boolean | null | undefined) => (real === false ? ', within noise' : '');
const list = (items: string[], max = 5) =>
  items.slice(0, max).join(', ') + (items.length > max ? `, and ${items.length - max} more` : '');

function describe(body: unknown): string {
  if (body === null || typeof body !== 'object') return String(body);
  const parts = Object.entries(body as Record<string, unknown>).map(([key, value]) => {
    if (Array.isArray(value)) return `${key}: ${value.length} items`;
    if (value !== null && typeof value === 'object') return `${key}: {${Object.keys(value).slice(0, 6).join(', ')}}`;
    return `${key}: ${String(value)}`;
  });
  return list(parts, 8);
}

export const genericSummary = (tool: string, body: unknown) =>
  `${tool}: ${describe(body)}. Full answer in the structured content.`;

const period = (b: { period: string; start: string; end: string }) => `${b.period} ${b.start} to ${b.end}`;

export const summaries: Record<string, Summary> = {
  whoami: of<ReturnType<typeof whoami>>(
    (b) =>
      `Key "${b.tokenName}" of ${b.user.name}, ${b.role} access in workspace ${b.org.name} (orgId ${b.org.id}, plan ${b.org.plan}).`,
  ),
  list_projects: of<{ projects: Result<typeof listSites>; total: number }>(
    (b) =>
      `${b.total} project${b.total === 1 ? '' : 's'}${b.total ? ': ' : '.'}${list(
        b.projects.map((p) => `${p.name} (projectId ${p.id}, ${p.domain})`),
        20,
      )}`,
  ),
  get_project: of<{ project: Result<typeof siteWithDetails> }>(
    ({ project: p }) =>
      `Project ${p.name} (projectId ${p.id}, ${p.domain}): ${p.answersCount} answers stored, ${p.competitors.length} tracked competitors.`,
  ),
  get_report: of<Result<typeof siteReport>>((b) => {
    if (!b.report) return `No report yet for ${period(b)}: the project has no answers.`;
    const { current: c, change } = b.report;
    const ranking = b.report.ranking.map((r) => `${r.rank}. ${r.name} ${pct(r.visibility)}`);
    const real = (xs: { real: boolean }[]) => xs.filter((x) => x.real).length;
    const visibility = `${withRange(c.visibility, c.visibilityLow, c.visibilityHigh)}${signed(change.visibility)}${noise(change.visibilityReal)}`;
    const voice = `${withRange(c.shareOfVoice, c.shareOfVoiceLow, c.shareOfVoiceHigh)}${signed(change.shareOfVoice)}${noise(change.shareOfVoiceReal)}`;
    const { won, lost } = b.report.changes;
    return `Report for ${period(b)}: visibility ${visibility}, share of voice ${voice}, average rank ${c.brandRank ?? 'n/a'}, ${c.answered} answers. Ranking: ${list(ranking)}. Prompts won ${won.length} (${real(won)} beyond noise), lost ${lost.length} (${real(lost)} beyond noise).`;
  }),
  get_trends: of<Result<typeof siteTrends>>((b) => {
    const shares = b.shares.map((s) => pct(s.visibility));
    return `Trends, ${b.window.length} ${b.period}s ending ${b.start}: visibility ${shares.join(' → ')}. ${b.prompts.length} active prompts: ${b.held.length} held, ${b.volatile.length} volatile, ${b.lost.length} lost.`;
  }),
  get_sentiment: of<Result<typeof siteSentiment>>((b) => {
    const o = b.overall;
    return `Sentiment for ${period(b)} over ${o.answers} answers naming the brand: positive ${withRange(o.positiveShare, o.positiveShareLow, o.positiveShareHigh)}, neutral ${withRange(o.neutralShare, o.neutralShareLow, o.neutralShareHigh)}, negative ${withRange(o.negativeShare, o.negativeShareLow, o.negativeShareHigh)}, mean score ${o.score ?? 'n/a'}.`;
  }),
  get_sources: of<Result<typeof siteSources>>(
    (b) =>
      `${b.total} cited domains for ${period(b)}${
        b.sources.length
          ? `; most cited: ${list(b.sources.map((s) => `${s.domain} (${s.count}, ${s.siteType}, in ${withRange(s.share, s.shareLow, s.shareHigh)} of answers)`))}`
          : ''
      }. ${b.ownPages.length} own pages cited.`,
  ),
  get_crawler_traffic: of<Result<typeof crawlerTrafficReport>>(
    (b) =>
      `AI crawler traffic for ${period(b)}: ${b.totals.hits} hits on ${b.totals.pages} pages${
        b.agents.length
          ? ` (${list(b.agents.map((a) => `${a.agent} ${a.hits}${a.verified === null ? '' : `, ${withRange(a.verified, a.verifiedLow, a.verifiedHigh)} verified`}`))})`
          : ''
      }; ${b.referrals.visits} visits sent by assistants; ${b.crawledNotCitedTotal} pages crawled but not cited, ${b.citedNotCrawledTotal} cited but not crawled.`,
  ),
  get_competitors: of<Result<typeof siteCompetitors>>(
    (b) =>
      `For ${period(b)}, ${b.answered} answers: the brand named in ${b.brand.mentioned}, visibility ${withRange(b.brand.visibility, b.brand.visibilityLow, b.brand.visibilityHigh)}; ${list(
        b.competitors.map(
          (c) => `${c.name} ${c.mentioned}, visibility ${withRange(c.visibility, c.visibilityLow, c.visibilityHigh)}`,
        ),
      )}. ${b.suggestions.length} untracked names suggested.`,
  ),
  list_prompts: of<Result<typeof listPrompts>>(
    (b) =>
      `${b.total} prompts (page ${b.page}, ${b.perPage} a page)${b.prompts.length ? `: ${list(b.prompts.map((p) => `"${p.text}" (promptId ${p.id})`))}` : '.'}`,
  ),
  get_prompt: of<Result<typeof promptDetail>>(
    (b) => `Prompt "${b.prompt.text}" (promptId ${b.prompt.id}): ${describe(b)}.`,
  ),
  get_answer: of<Result<typeof promptAnswer>>((b) =>
    b.answer
      ? `Answer of ${b.answer.provider} (${b.answer.model}) to "${b.prompt.text}", ${String(b.answer.askedAt)}: verdict ${b.answer.verdict}, brand rank ${b.answer.brandRank ?? 'none'}, ${b.answer.citations.length} citations.`
      : `No answer yet to "${b.prompt.text}".`,
  ),
  list_scans: of<Result<typeof listScans>>(
    (b) =>
      `${b.total} scans${
        b.scans.length
          ? `; latest: ${list(
              b.scans.map((s) => `#${s.id} ${s.status} ${s.answersDone}/${s.answersTotal} answers, ${s.cost}`),
              3,
            )}`
          : '.'
      }`,
  ),
  get_scan: of<Result<typeof scanDetail>>(
    ({ scan: s, total }) =>
      `Scan #${s.id} ${s.status}${s.stopReason ? ` (stopped: ${s.stopReason})` : ''}: ${s.answersDone}/${s.answersTotal} answers, ${s.answersFailed} failed, cost ${s.cost}; ${total} answers in this tab.`,
  ),
  get_live_scan: of<Result<typeof liveScan>>((b) =>
    b.run ? `A scan is in progress: ${describe(b.run)}.` : 'No scan is in progress.',
  ),
  estimate_scan: of<Result<typeof estimateScan>>(
    (b) => `A scan would ask ${b.prompts} prompts for ${b.answers} answers, costing about ${b.formatted}.`,
  ),
  start_scan: of<Result<typeof startScan>>(
    ({ scan: s, estimate }) =>
      `Scan #${s.id} ${s.status}: ${estimate.answers} answers, estimated ${estimate.formatted}, budget $${s.budgetUsd}.`,
  ),
  cancel_scan: of<Result<typeof cancelScan>>(({ scan: s }) => `Scan #${s.id} is now ${s.status}.`),
  list_shares: of<Result<typeof listShares>>((b) => `${b.total} share links, ${b.active} active.`),
  list_names: of<Result<typeof listNames>>(
    (b) =>
      `${b.total} names${b.names.length < b.total ? ` (page ${b.page}, ${b.perPage} a page)` : ''}: ${list(
        b.names.map(
          (n) =>
            `${n.name}${n.ambiguous ? ` (ambiguous: ${n.reason})` : ''} counted in ${n.countedIn}, refused in ${n.refusedIn}` +
            (n.precision.value === null
              ? ''
              : `, precision ${withRange(n.precision.value, n.precision.low, n.precision.high)} over ${n.precision.corrections} corrections`),
        ),
        10,
      )}.`,
  ),
  add_mention_feedback: of<Result<typeof addMentionFeedback>>(
    ({ feedback: f, answer: a }) =>
      `Saved: ${f.name} ${f.mentioned ? 'is' : 'is not'} meant in answer ${f.answerId} (the reading ${f.readingAgreed ? 'agreed' : 'disagreed'}). Re-read: verdict ${a.verdict}, brand rank ${a.brandRank ?? 'none'}.`,
  ),
};
