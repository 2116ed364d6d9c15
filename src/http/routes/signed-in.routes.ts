import { SignedInOnlyError } from '../../errors.ts';
import { defineRoute, type Method, type Route } from '../route.ts';

/**
 * Actions only a signed-in person may take in the web app. Keys get 403 with
 * that reason; they are in the table so OpenAPI and the role matrix see them.
 */
const refuse = () => {
  throw new SignedInOnlyError();
};

const every: Method[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

const personOnly: [Method, string, string][] = [
  ...every.flatMap((m): [Method, string, string][] => [
    [m, '/auth/*', 'Sign-in and sessions'],
    [m, '/account', 'The signed-in person’s account'],
    [m, '/account/*', 'The signed-in person’s account'],
  ]),
  ['POST', '/orgs', 'Create a workspace'],
  ['PATCH', '/orgs/:orgId', 'Rename a workspace (owner)'],
  ['DELETE', '/orgs/:orgId', 'Delete a workspace (owner)'],
  ['POST', '/orgs/:orgId/switch', 'Switch the current workspace'],
  ['POST', '/orgs/:orgId/leave', 'Leave a workspace'],
  ['GET', '/orgs/:orgId/tokens', 'List API keys'],
  ['POST', '/orgs/:orgId/tokens', 'Create an API key'],
  ['DELETE', '/orgs/:orgId/tokens/:tokenId', 'Revoke an API key'],
  ['POST', '/orgs/:orgId/topups', 'Top up the balance (owner)'],
  ['GET', '/orgs/:orgId/invoices', 'Invoices (owner)'],
  ['DELETE', '/projects/:id', 'Delete a site (owner)'],
  ['POST', '/invitations/:token/accept', 'Accept an invitation'],
];

export const signedInRoutes: Route[] = personOnly.map(([method, path, summary]) =>
  defineRoute({
    method,
    path,
    summary: `${summary}: signed-in person only, 403 to API keys`,
    access: 'signed-in',
    handler: refuse,
  }),
);
