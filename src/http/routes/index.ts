import type { Metrics } from '../prometheus.ts';
import type { Route } from '../route.ts';
import { competitorRoutes } from './competitors.routes.ts';
import { eventRoutes } from './events.routes.ts';
import { personaRoutes } from './personas.routes.ts';
import { promptViewRoutes } from './prompt-views.routes.ts';
import { promptRoutes } from './prompts.routes.ts';
import { reportRoutes } from './reports.routes.ts';
import { rewriteRoutes } from './rewrite.routes.ts';
import { scanRoutes } from './scans.routes.ts';
import { signedInRoutes } from './signed-in.routes.ts';
import { siteRoutes } from './sites.routes.ts';
import { systemRoutes } from './system.routes.ts';
import { workspaceRoutes } from './workspace.routes.ts';

/** The one route table. Later areas add their `*.routes.ts` here. */
export function allRoutes(metrics: Metrics): Route[] {
  const routes: Route[] = [...systemRoutes(metrics, () => routes), ...workspaceRoutes, ...siteRoutes, ...competitorRoutes, ...promptRoutes, ...personaRoutes, ...eventRoutes, ...rewriteRoutes, ...scanRoutes, ...reportRoutes, ...promptViewRoutes, ...signedInRoutes];
  return routes;
}
