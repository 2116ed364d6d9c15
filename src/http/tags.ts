/**
 * The OpenAPI document's tags, in the order it lists them, each described.
 * A route names its own tag and operationId (`tag`, `operationId` of its
 * definition in routes/*.routes.ts); a test checks that every documented
 * route has both.
 */

export const TAGS = [
  {
    name: 'Workspace',
    description: 'The key’s workspace: who the key is, members and invitations, usage and balance.',
  },
  { name: 'Providers', description: 'The assistants this deployment can ask, their models and prices per answer.' },
  { name: 'Projects', description: 'Sites (projects): their settings, brand terms, caps and scan schedule.' },
  {
    name: 'Events',
    description: 'Variant B: dated annotations (a release, a campaign, a model update) that trend charts draw.',
  },
  { name: 'Competitors', description: 'Tracked competitors, and how each compares with the brand in the answers.' },
  {
    name: 'Names',
    description:
      'How answers read each tracked name (counted or refused, with quotes), and readers’ corrections that re-read an answer and measure a name’s precision.',
  },
  {
    name: 'Prompts',
    description:
      'The questions put to the assistants: results per assistant, answers word for word, CSV import and export, rewriting search queries.',
  },
  { name: 'Categories', description: 'Categories that group a project’s prompts.' },
  { name: 'Personas', description: 'Variant A: buyer personas whose wording prompts are asked in.' },
  {
    name: 'Scans',
    description:
      'Asking the assistants: options and prices, estimates, starting, live progress, history and each scan’s answers.',
  },
  {
    name: 'Reports',
    description:
      'Numbers over periods, read from rollups: visibility, share of voice, trends, sentiment, sources and searches.',
  },
  { name: 'Pages', description: 'The site’s pages from its sitemaps, and which of them the answers link to.' },
  { name: 'Crawlers', description: 'What AI crawlers may read of the site (robots.txt), and its llms.txt.' },
  {
    name: 'Traffic',
    description:
      'What AI crawlers fetched and which visits assistants sent, from the site’s server logs, joined with pages and citations.',
  },
  { name: 'Shares', description: 'Variant A: revocable public links to a project’s report page.' },
  { name: 'Reanalysis', description: 'Re-reading stored answers with the project’s current names; asks no assistant.' },
  {
    name: 'Webhooks',
    description:
      'Signed webhooks and Slack messages when something changes for real: endpoints, deliveries, replays; every payload is under `webhooks`.',
  },
  { name: 'MCP', description: 'The Model Context Protocol server over these endpoints, for AI agents (docs/mcp.md).' },
  { name: 'System', description: 'Health, readiness, metrics and this document; no key needed.' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];
