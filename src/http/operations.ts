/**
 * How the OpenAPI document names and groups each operation: a readable
 * operationId (what a generated client calls its method) and one tag (the
 * feature it belongs to), keyed `METHOD /path` as in the route table. A test
 * checks that every documented route has an entry here.
 */

export const TAGS = [
  { name: 'Workspace', description: 'The key’s workspace: who the key is, members and invitations, usage and balance.' },
  { name: 'Providers', description: 'The assistants this deployment can ask, their models and prices per answer.' },
  { name: 'Projects', description: 'Sites (projects): their settings, brand terms, caps and scan schedule.' },
  { name: 'Events', description: 'Variant B: dated annotations (a release, a campaign, a model update) that trend charts draw.' },
  { name: 'Competitors', description: 'Tracked competitors, and how each compares with the brand in the answers.' },
  {
    name: 'Names',
    description: 'How answers read each tracked name (counted or refused, with quotes), and readers’ corrections that re-read an answer and measure a name’s precision.',
  },
  { name: 'Prompts', description: 'The questions put to the assistants: results per assistant, answers word for word, CSV import and export, rewriting search queries.' },
  { name: 'Categories', description: 'Categories that group a project’s prompts.' },
  { name: 'Personas', description: 'Variant A: buyer personas whose wording prompts are asked in.' },
  { name: 'Scans', description: 'Asking the assistants: options and prices, estimates, starting, live progress, history and each scan’s answers.' },
  { name: 'Reports', description: 'Numbers over periods, read from rollups: visibility, share of voice, trends, sentiment, sources and searches.' },
  { name: 'Pages', description: 'The site’s pages from its sitemaps, and which of them the answers link to.' },
  { name: 'Crawlers', description: 'What AI crawlers may read of the site (robots.txt), and its llms.txt.' },
  { name: 'Traffic', description: 'What AI crawlers fetched and which visits assistants sent, from the site’s server logs, joined with pages and citations.' },
  { name: 'Shares', description: 'Variant A: revocable public links to a project’s report page.' },
  { name: 'Reanalysis', description: 'Re-reading stored answers with the project’s current names; asks no assistant.' },
  { name: 'Webhooks', description: 'Signed webhooks and Slack messages when something changes for real: endpoints, deliveries, replays; every payload is under `webhooks`.' },
  { name: 'MCP', description: 'The Model Context Protocol server over these endpoints, for AI agents (docs/mcp.md).' },
  { name: 'System', description: 'Health, readiness, metrics and this document; no key needed.' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

export const OPERATIONS: Readonly<Record<string, readonly [operationId: string, tag: Tag]>> = {
  'GET /healthz': ['getHealth', 'System'],
  'GET /readyz': ['getReadiness', 'System'],
  'GET /metrics': ['getMetrics', 'System'],
  'GET /openapi.json': ['getOpenApiDocument', 'System'],

  'GET /whoami': ['whoami', 'Workspace'],
  'GET /orgs/:orgId': ['getWorkspace', 'Workspace'],
  'GET /orgs/:orgId/dashboard': ['getDashboard', 'Workspace'],
  'GET /orgs/:orgId/usage': ['getUsage', 'Workspace'],
  'GET /orgs/:orgId/members': ['listMembers', 'Workspace'],
  'POST /orgs/:orgId/invitations': ['inviteMember', 'Workspace'],
  'DELETE /orgs/:orgId/invitations/:invitationId': ['cancelInvitation', 'Workspace'],
  'PATCH /orgs/:orgId/members/:userId': ['changeMemberRole', 'Workspace'],
  'DELETE /orgs/:orgId/members/:userId': ['removeMember', 'Workspace'],

  'GET /orgs/:orgId/providers': ['listProviders', 'Providers'],

  'GET /orgs/:orgId/projects': ['listProjects', 'Projects'],
  'POST /orgs/:orgId/projects': ['createProject', 'Projects'],
  'GET /projects/:id': ['getProject', 'Projects'],
  'PATCH /projects/:id': ['updateProject', 'Projects'],
  'PATCH /projects/:id/schedule': ['setSchedule', 'Projects'],

  'GET /projects/:id/events': ['listEvents', 'Events'],
  'POST /projects/:id/events': ['createEvent', 'Events'],
  'DELETE /projects/:id/events/:eventId': ['deleteEvent', 'Events'],

  'POST /projects/:id/competitors': ['trackCompetitor', 'Competitors'],
  'PATCH /projects/:id/competitors/:competitorId': ['updateCompetitor', 'Competitors'],
  'DELETE /projects/:id/competitors/:competitorId': ['untrackCompetitor', 'Competitors'],
  'GET /projects/:id/competitors': ['getCompetitors', 'Competitors'],
  'GET /projects/:id/competitors/:competitorId': ['getCompetitor', 'Competitors'],

  'GET /projects/:id/names': ['listNames', 'Names'],
  'GET /projects/:id/mention-feedback': ['listMentionFeedback', 'Names'],
  'POST /projects/:id/mention-feedback': ['addMentionFeedback', 'Names'],

  'GET /projects/:id/prompts': ['listPrompts', 'Prompts'],
  'GET /projects/:id/prompts/export.csv': ['exportPrompts', 'Prompts'],
  'POST /projects/:id/prompts': ['createPrompt', 'Prompts'],
  'PATCH /projects/:id/prompts/:promptId': ['updatePrompt', 'Prompts'],
  'POST /projects/:id/prompts/bulk': ['bulkUpdatePrompts', 'Prompts'],
  'POST /projects/:id/prompts/import': ['importPrompts', 'Prompts'],
  'GET /projects/:id/prompts/rewrite/pending': ['getPendingRewrites', 'Prompts'],
  'POST /projects/:id/prompts/rewrite': ['rewritePrompts', 'Prompts'],
  'GET /projects/:id/prompts/:promptId': ['getPrompt', 'Prompts'],
  'GET /projects/:id/prompts/:promptId/answer': ['getPromptAnswer', 'Prompts'],

  'GET /projects/:id/categories': ['listCategories', 'Categories'],
  'POST /projects/:id/categories': ['createCategory', 'Categories'],
  'POST /projects/:id/categories/merge': ['mergeCategories', 'Categories'],

  'GET /projects/:id/personas': ['listPersonas', 'Personas'],
  'POST /projects/:id/personas': ['createPersona', 'Personas'],
  'PATCH /projects/:id/personas/:personaId': ['updatePersona', 'Personas'],
  'DELETE /projects/:id/personas/:personaId': ['deletePersona', 'Personas'],

  'GET /projects/:id/scan-options': ['getScanOptions', 'Scans'],
  'POST /projects/:id/scans/estimate': ['estimateScan', 'Scans'],
  'POST /projects/:id/scans': ['startScan', 'Scans'],
  'GET /projects/:id/scans/live': ['getLiveScan', 'Scans'],
  'POST /projects/:id/scans/:scanId/cancel': ['cancelScan', 'Scans'],
  'GET /projects/:id/scans': ['listScans', 'Scans'],
  'GET /projects/:id/scans/:scanId': ['getScan', 'Scans'],
  'GET /projects/:id/sampling-plan': ['getSamplingPlan', 'Scans'],

  'GET /projects/:id/report': ['getReport', 'Reports'],
  'GET /projects/:id/trends': ['getTrends', 'Reports'],
  'GET /projects/:id/sentiment': ['getSentiment', 'Reports'],
  'GET /projects/:id/sources': ['getSources', 'Reports'],
  'GET /projects/:id/searches': ['getSearches', 'Reports'],

  'GET /projects/:id/pages': ['listPages', 'Pages'],
  'GET /projects/:id/pages/:pageId/prompts': ['listPagePrompts', 'Pages'],
  'POST /projects/:id/pages/import-sitemap': ['importSitemap', 'Pages'],

  'GET /projects/:id/crawlers': ['getCrawlers', 'Crawlers'],
  'POST /projects/:id/crawlers/check': ['checkCrawlers', 'Crawlers'],

  'POST /projects/:id/crawler-logs': ['importCrawlerLog', 'Traffic'],
  'POST /projects/:id/crawler-logs/pull': ['pullCrawlerLog', 'Traffic'],
  'GET /projects/:id/crawler-logs': ['listCrawlerLogs', 'Traffic'],
  'GET /projects/:id/crawler-traffic': ['getCrawlerTraffic', 'Traffic'],

  'GET /projects/:id/shares': ['listShares', 'Shares'],
  'POST /projects/:id/shares': ['createShare', 'Shares'],
  'DELETE /projects/:id/shares/:shareId': ['revokeShare', 'Shares'],
  'GET /share/:token': ['getSharedReportPage', 'Shares'],

  'POST /projects/:id/reanalyse': ['startReanalysis', 'Reanalysis'],
  'GET /projects/:id/reanalyses/:reanalysisId': ['getReanalysis', 'Reanalysis'],

  'GET /orgs/:orgId/webhooks': ['listWebhooks', 'Webhooks'],
  'POST /orgs/:orgId/webhooks': ['createWebhook', 'Webhooks'],
  'GET /orgs/:orgId/webhooks/:webhookId': ['getWebhook', 'Webhooks'],
  'PATCH /orgs/:orgId/webhooks/:webhookId': ['updateWebhook', 'Webhooks'],
  'DELETE /orgs/:orgId/webhooks/:webhookId': ['deleteWebhook', 'Webhooks'],
  'POST /orgs/:orgId/webhooks/:webhookId/test': ['testWebhook', 'Webhooks'],
  'POST /orgs/:orgId/webhooks/:webhookId/rotate-secret': ['rotateWebhookSecret', 'Webhooks'],
  'GET /orgs/:orgId/webhooks/:webhookId/deliveries': ['listWebhookDeliveries', 'Webhooks'],
  'POST /orgs/:orgId/webhooks/:webhookId/deliveries/:deliveryId/replay': ['replayWebhookDelivery', 'Webhooks'],
  'GET /orgs/:orgId/alert-settings': ['getAlertSettings', 'Webhooks'],
  'PATCH /orgs/:orgId/alert-settings': ['updateAlertSettings', 'Webhooks'],

  'POST /mcp': ['mcp', 'MCP'],
};
