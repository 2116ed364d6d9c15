/**
 * The MCP tools: each names one route of the HTTP route table, and is that
 * route in every other respect. Its input schema is the route's path ids plus
 * its query or body schema, its role and variant are the route's, and a call
 * runs the route's own handler (one domain call) after the same checks. A
 * test walks the route table and this list together, so a read endpoint
 * without a tool, or a tool without its route, fails the build.
 */

export interface ToolEntry {
  name: string;
  /** `METHOD /path` of the route in src/http/routes. */
  route: string;
  /** Said to the agent before the route's own summary. */
  lead?: string;
}

export const TOOL_ENTRIES: readonly ToolEntry[] = [
  { name: 'whoami', route: 'GET /whoami', lead: 'Who this key is: its workspace (org.id) and role. Call first.' },
  { name: 'get_workspace', route: 'GET /orgs/:orgId' },
  { name: 'get_dashboard', route: 'GET /orgs/:orgId/dashboard' },
  { name: 'get_usage', route: 'GET /orgs/:orgId/usage' },
  { name: 'list_members', route: 'GET /orgs/:orgId/members' },
  { name: 'list_providers', route: 'GET /orgs/:orgId/providers' },
  { name: 'list_projects', route: 'GET /orgs/:orgId/projects', lead: 'The sites (projects) of the workspace; their ids are the projectId of every other tool.' },
  { name: 'get_project', route: 'GET /projects/:id' },
  { name: 'get_report', route: 'GET /projects/:id/report' },
  { name: 'get_trends', route: 'GET /projects/:id/trends' },
  { name: 'get_sentiment', route: 'GET /projects/:id/sentiment' },
  { name: 'get_sources', route: 'GET /projects/:id/sources' },
  { name: 'get_competitors', route: 'GET /projects/:id/competitors' },
  { name: 'get_competitor', route: 'GET /projects/:id/competitors/:competitorId' },
  {
    name: 'list_names',
    route: 'GET /projects/:id/names',
    lead: 'Check here before trusting counts of a name that is an everyday word: how answers read it, with quotes.',
  },
  { name: 'list_mention_feedback', route: 'GET /projects/:id/mention-feedback' },
  {
    name: 'add_mention_feedback',
    route: 'POST /projects/:id/mention-feedback',
    lead: 'Changes the project’s numbers: correct a reading only where the answer’s text shows what the name means.',
  },
  { name: 'get_searches', route: 'GET /projects/:id/searches' },
  { name: 'list_prompts', route: 'GET /projects/:id/prompts' },
  { name: 'get_prompt', route: 'GET /projects/:id/prompts/:promptId' },
  { name: 'get_answer', route: 'GET /projects/:id/prompts/:promptId/answer' },
  { name: 'get_pending_rewrites', route: 'GET /projects/:id/prompts/rewrite/pending' },
  { name: 'list_categories', route: 'GET /projects/:id/categories' },
  { name: 'list_personas', route: 'GET /projects/:id/personas' },
  { name: 'list_events', route: 'GET /projects/:id/events' },
  { name: 'list_pages', route: 'GET /projects/:id/pages' },
  { name: 'get_page_prompts', route: 'GET /projects/:id/pages/:pageId/prompts' },
  { name: 'get_crawlers', route: 'GET /projects/:id/crawlers' },
  { name: 'get_crawler_traffic', route: 'GET /projects/:id/crawler-traffic', lead: 'What AI crawlers fetched and which visits assistants sent, from imported server logs.' },
  { name: 'list_crawler_logs', route: 'GET /projects/:id/crawler-logs' },
  { name: 'import_crawler_log', route: 'POST /projects/:id/crawler-logs', lead: 'Send log lines as contents (JSON text).' },
  { name: 'pull_crawler_log', route: 'POST /projects/:id/crawler-logs/pull' },
  { name: 'get_scan_options', route: 'GET /projects/:id/scan-options' },
  { name: 'estimate_scan', route: 'POST /projects/:id/scans/estimate' },
  { name: 'start_scan', route: 'POST /projects/:id/scans', lead: 'Spends the workspace balance: estimate_scan first.' },
  { name: 'get_live_scan', route: 'GET /projects/:id/scans/live' },
  { name: 'cancel_scan', route: 'POST /projects/:id/scans/:scanId/cancel' },
  { name: 'list_scans', route: 'GET /projects/:id/scans' },
  { name: 'get_scan', route: 'GET /projects/:id/scans/:scanId' },
  { name: 'get_reanalysis', route: 'GET /projects/:id/reanalyses/:reanalysisId' },
  { name: 'list_shares', route: 'GET /projects/:id/shares' },
  { name: 'get_sampling_plan', route: 'GET /projects/:id/sampling-plan', lead: 'How many samples per prompt a scan needs for a change in visibility to be real, and its cost.' },
  { name: 'list_webhooks', route: 'GET /orgs/:orgId/webhooks' },
  { name: 'get_webhook', route: 'GET /orgs/:orgId/webhooks/:webhookId' },
  { name: 'list_webhook_deliveries', route: 'GET /orgs/:orgId/webhooks/:webhookId/deliveries', lead: 'What was sent to a webhook, each delivery’s state and attempts.' },
  { name: 'get_alert_settings', route: 'GET /orgs/:orgId/alert-settings' },
];

/** Keyed read routes that have no tool, and why. */
export const ROUTES_WITHOUT_TOOLS: Readonly<Record<string, string>> = {
  'GET /projects/:id/prompts/export.csv': 'the rows of list_prompts, as a CSV file',
};
