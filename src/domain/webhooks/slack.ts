import type { z } from 'zod';
import type { EVENT_DATA, EventType } from './event-types.ts';

/**
 * `slack` deliveries: a Slack incoming-webhook message (`text`, the
 * notification's line, and `blocks`: what changed, before and after with
 * their 95% ranges, a link) for the same events as standard deliveries.
 * https://api.slack.com/messaging/webhooks
 */

type Payload = { [T in EventType]: { type: T; data: z.output<(typeof EVENT_DATA)[T]> } }[EventType];
type Measured = { value: number; low: number; high: number; answers?: number };
type Comparison = z.output<(typeof EVENT_DATA)['visibility.changed']>['comparison'];

export interface SlackMessage {
  text: string;
  blocks: unknown[];
}

/** Slack's mrkdwn gives meaning to &, < and >: a customer's text must not. */
const escape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const pct = (v: number) => `${v.toFixed(1)}%`;
const range = (m: Measured) =>
  `${pct(m.value)} (95% range ${pct(m.low)} to ${pct(m.high)}${m.answers === undefined ? '' : `, ${m.answers.toLocaleString('en-US')} answers`})`;
const usd = (v: number) => `$${v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

function compared(c: Comparison): string {
  return c.kind === 'scan'
    ? `scan ${c.after.scanId} against scan ${c.before.scanId}`
    : `the ${c.period} of ${c.after.start} against the ${c.period} of ${c.before.start}`;
}

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const fields = (...texts: string[]) => ({ type: 'section', fields: texts.map((text) => ({ type: 'mrkdwn', text })) });
const link = (url: string, label: string) => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: `<${url}|${label}>` }],
});

/** Both the notification line and the blocks are read as mrkdwn: a customer's names are escaped in each. */
function message(text: string, blocks: unknown[]): SlackMessage {
  return { text: escape(text), blocks: [section(`*${escape(text)}*`), ...blocks] };
}

const METRIC_NAMES = {
  visibility: 'Visibility',
  shareOfVoice: 'Share of voice',
  ownCitationRate: 'Own citations',
} as const;

export function slackMessage(event: Payload): SlackMessage {
  switch (event.type) {
    case 'scan.completed':
    case 'scan.failed': {
      const d = event.data;
      const s = d.scan;
      const verb = event.type === 'scan.completed' ? 'finished' : 'failed';
      return message(`${d.projectName}: scan ${s.id} ${verb}`, [
        fields(
          `*Answers*\n${s.answersDone} of ${s.answersTotal} (${s.answersFailed} failed)`,
          `*Cost*\n${s.cost}`,
          `*Stop reason*\n${s.stopReason ?? 'none'}`,
          ...(s.error ? [`*Error*\n${escape(s.error)}`] : []),
        ),
        link(d.link, 'The scan'),
      ]);
    }
    case 'visibility.changed':
    case 'share_of_voice.changed':
    case 'citations.changed': {
      const d = event.data;
      const name = METRIC_NAMES[d.metric];
      return message(
        `${d.projectName}: ${name.toLowerCase()} ${d.direction === 'up' ? 'rose' : 'fell'} ${Math.abs(d.change).toFixed(1)} points`,
        [
          section(`Compared ${compared(d.comparison)}; larger than its noise (p = ${d.pValue}).`),
          fields(`*Before*\n${range(d.before)}`, `*After*\n${range(d.after)}`),
          link(d.link, 'The report'),
        ],
      );
    }
    case 'prompt.won':
    case 'prompt.lost': {
      const d = event.data;
      const verb = event.type === 'prompt.won' ? 'now names' : 'no longer names';
      return message(`${d.projectName}: an assistant ${verb} the brand for “${d.prompt.text.slice(0, 200)}”`, [
        section(`Compared ${compared(d.comparison)}; larger than its noise (p = ${d.pValue}).`),
        fields(
          `*Before*\n${d.before.named} of ${d.before.answered} answers named or cited the brand`,
          `*After*\n${d.after.named} of ${d.after.answered} answers named or cited the brand`,
        ),
        link(d.link, 'The report'),
      ]);
    }
    case 'competitor.overtook': {
      const d = event.data;
      return message(`${d.projectName}: ${d.competitor.name} overtook the brand`, [
        section(`Compared ${compared(d.comparison)}; larger than its noise (p = ${d.brandShareOfPair.pValue}).`),
        fields(
          `*Brand visibility*\n${range(d.before.brand)} → ${range(d.after.brand)}`,
          `*${escape(d.competitor.name)} visibility*\n${range(d.before.competitor)} → ${range(d.after.competitor)}`,
        ),
        link(d.link, 'The report'),
      ]);
    }
    case 'crawler.access_changed': {
      const d = event.data;
      const lines = d.changes.map(
        (c) =>
          `• ${escape(c.agent)}: ${c.before} → ${c.after}${c.decidingLine ? ` (line ${c.decidingLine.line}: \`${escape(c.decidingLine.text)}\`)` : ''}`,
      );
      return message(
        `${d.projectName}: robots.txt changed what ${d.changes.length === 1 ? 'an AI crawler' : `${d.changes.length} AI crawlers`} may read`,
        [section(lines.slice(0, 20).join('\n')), link(d.link, 'Crawler access')],
      );
    }
    case 'llms_txt.changed': {
      const d = event.data;
      return message(`${d.projectName}: llms.txt ${d.change}`, [
        fields(`*Before*\n${d.before.state}`, `*After*\n${d.after.state}`),
        link(d.link, 'Crawler access'),
      ]);
    }
    case 'budget.cap_reached': {
      const d = event.data;
      return message(`${d.projectName}: the monthly cap is spent`, [
        fields(`*Cap*\n${usd(d.capUsd)}`, `*Spent this month*\n${usd(d.spentUsd)}`),
        section('Scans of this site stop until next month or until the cap is raised.'),
        link(d.link, 'The site'),
      ]);
    }
    case 'balance.low': {
      const d = event.data;
      return message(`The workspace balance is low: ${usd(d.balanceUsd)}`, [
        fields(
          `*Balance*\n${usd(d.balanceUsd)}`,
          `*Alert under*\n${usd(d.thresholdUsd)}${d.thresholdFrom === 'last-top-up' ? ' (10% of the last top-up)' : ''}`,
        ),
      ]);
    }
    case 'webhook.test': {
      const d = event.data;
      return message(`Sightline test message for webhook ${d.webhookId}`, [section(escape(d.message))]);
    }
  }
}
