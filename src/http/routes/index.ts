import type { Metrics } from '../prometheus.ts';
import type { Route } from '../route.ts';
import { categoryRoutes } from './categories.routes.ts';
import { competitorRoutes } from './competitors.routes.ts';
import { crawlerRoutes } from './crawlers.routes.ts';
import { mcpRoutes } from './mcp.routes.ts';
import { nameRoutes } from './names.routes.ts';
import { pageRoutes } from './pages.routes.ts';
import { personaRoutes } from './personas.routes.ts';
import { promptRoutes } from './prompts.routes.ts';
import { providerRoutes } from './providers.routes.ts';
import { reanalysisRoutes } from './reanalysis.routes.ts';
import { reportRoutes } from './reports.routes.ts';
import { scanRoutes } from './scans.routes.ts';
import { shareRoutes } from './shares.routes.ts';
import { signedInRoutes } from './signed-in.routes.ts';
import { siteRoutes } from './sites.routes.ts';
import { systemRoutes } from './system.routes.ts';
import { webhookRoutes } from './webhooks.routes.ts';
import { trafficRoutes } from './traffic.routes.ts';
import { orgRoutes } from './orgs.routes.ts';

/** The one route table: one `<feature>.routes.ts` per folder of src/domain. */
export function allRoutes(metrics: Metrics): Route[] {
  const routes: Route[] = [
    ...systemRoutes(metrics, () => routes),
    ...orgRoutes,
    ...providerRoutes,
    ...siteRoutes,
    ...competitorRoutes,
    ...nameRoutes,
    ...pageRoutes,
    ...crawlerRoutes,
    ...trafficRoutes,
    ...promptRoutes,
    ...categoryRoutes,
    ...personaRoutes,
    ...scanRoutes,
    ...reportRoutes,
    ...shareRoutes,
    ...reanalysisRoutes,
    ...webhookRoutes,
    ...signedInRoutes,
    ...mcpRoutes(() => routes),
  ];
  return routes;
}
