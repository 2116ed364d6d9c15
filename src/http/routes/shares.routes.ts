import {
  SHARE_PAGE_DEFAULT,
  shareListQuerySchema,
  sharePageQuerySchema,
  shareCreateSchema,
  createShare,
  listShares,
  revokeShare,
  sharedReport,
  createdShare,
  revokedShare,
  shareList,
} from '../../domain/shares/index.ts';
import { renderNotFoundPage } from '../../share/not-found.ts';
import { renderSharePage } from '../../share/page.ts';
import { defineRoute, json, type Reply, type Route } from '../route.ts';

/** Share links (src/domain/shares) and the public page they open (src/share), variant A only. */

const page = (p: { status: number; html: string; contentType: string; headers: Record<string, string> }): Reply => ({
  status: p.status,
  raw: p.html,
  contentType: p.contentType,
  headers: p.headers,
});

export const shareRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/shares',
    operationId: 'listShares',
    tag: 'Shares',
    mcp: { tool: 'list_shares' },
    summary: `The site’s report share links, newest first, revoked ones included (page, perPage: 5 to 200, default ${SHARE_PAGE_DEFAULT}); a link’s URL is shown only when it is created`,
    access: 'admin',
    variant: 'A',
    query: shareListQuerySchema,
    responses: { 200: shareList },
    handler: async ({ ctx, site, query }) => json(await listShares(ctx, site, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/shares',
    operationId: 'createShare',
    tag: 'Shares',
    summary:
      'Create a share link to the site’s report, with an optional label (up to 100 characters); answers its url, which opens /share/:token without a key',
    access: 'admin',
    variant: 'A',
    body: shareCreateSchema,
    example: { label: 'Board deck, Q4' },
    responses: { 200: createdShare, 400: 'Malformed JSON, or the project has the most active share links it can have' },
    handler: async ({ ctx, site, principal, body }) => json(await createShare(ctx, site, principal.user.id, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/projects/:id/shares/:shareId',
    operationId: 'revokeShare',
    tag: 'Shares',
    summary: 'Revoke a share link for good: its page answers 404 from now on; it stays listed as revoked',
    access: 'admin',
    variant: 'A',
    responses: { 200: revokedShare },
    handler: async ({ ctx, site, ids }) => json(await revokeShare(ctx, site, ids.shareId)),
  }),
  defineRoute({
    method: 'GET',
    path: '/share/:token',
    operationId: 'getSharedReportPage',
    tag: 'Shares',
    summary:
      'The public report page of a share link (HTML, no key): visibility and share of voice over time, brand ranking, per assistant, what changed, most cited sources, a period switcher. Takes period and start like the reports; an unknown or revoked token answers a 404 page',
    access: 'public',
    variant: 'A',
    query: sharePageQuerySchema,
    responses: {
      200: { contentType: 'text/html', description: 'The report page (ETag; If-None-Match answers 304)' },
      304: { description: 'Not modified since the ETag sent' },
      404: { contentType: 'text/html', description: 'Unknown or revoked token: a not-found page' },
    },
    handler: async ({ ctx, params, query, req }) => {
      const data = await sharedReport(ctx, params.token, query);
      if (!data) return page(renderNotFoundPage());
      const rendered = renderSharePage(data);
      const headers = { ...rendered.headers, ETag: rendered.etag };
      if (req.headers['if-none-match'] === rendered.etag)
        return { status: 304, raw: '', contentType: rendered.contentType, headers };
      return page({ ...rendered, headers });
    },
  }),
];
