import {
  createPersona,
  deletePersona,
  listPersonas,
  PERSONAS_PER_SITE,
  personaCreateSchema,
  personaListQuerySchema,
  personaUpdateSchema,
  updatePersona,
  deletedPersona,
  personaList,
  personaResponse,
} from '../../domain/personas/index.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** Buyer personas (src/domain/personas), variant A only: a deployment serving B alone answers 404 for these paths. */
export const personaRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/personas',
    summary: `Buyer personas with the number of prompts each asks, by name (page, perPage: 5 to 200, default ${PERSONAS_PER_SITE})`,
    access: 'viewer',
    variant: 'A',
    query: personaListQuerySchema,
    responses: { 200: personaList },
    handler: async ({ ctx, site, query }) => json(await listPersonas(ctx, site, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/personas',
    summary: `Add a buyer persona: name (up to 80) and context (up to 600, who asks, in their words); up to ${PERSONAS_PER_SITE} per project`,
    access: 'member',
    variant: 'A',
    body: personaCreateSchema,
    example: { name: 'IT manager', context: 'I run IT for a 200-person company and need tools my small team can set up in a week.' },
    responses: { 200: personaResponse, 400: `Malformed JSON, or the project has ${PERSONAS_PER_SITE} personas`, 409: 'A persona of this name exists' },
    handler: async ({ ctx, site, body }) => json(await createPersona(ctx, site, body)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id/personas/:personaId',
    summary: 'Change a persona’s name and/or context',
    access: 'member',
    variant: 'A',
    body: personaUpdateSchema,
    example: { context: 'I run IT for a 500-person company with offices in three countries.' },
    responses: { 200: personaResponse },
    handler: async ({ ctx, site, ids, body }) => json(await updatePersona(ctx, site, ids.personaId, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/projects/:id/personas/:personaId',
    summary: 'Remove a persona; its prompts are asked without one from the next scan',
    access: 'member',
    variant: 'A',
    responses: { 200: deletedPersona },
    handler: async ({ ctx, site, ids }) => json(await deletePersona(ctx, site, ids.personaId)),
  }),
];
