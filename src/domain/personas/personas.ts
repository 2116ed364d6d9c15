import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { PersonaRow, SiteRow } from '../../db/schema.ts';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { lockSite, text, pagingShape } from '../common/index.ts';

/**
 * Buyer personas (variant A): who asks a prompt, in their words. A scan asks
 * a prompt with its persona's context; deleting a persona leaves its prompts
 * asked without one.
 */

export const PERSONA_NAME_MAX = 80;
export const PERSONA_CONTEXT_MAX = 600;
/** Personas per site: more audiences than a team words by hand, and a bound on what one site holds and lists. */
export const PERSONAS_PER_SITE = 100;

const personaName = text('name', PERSONA_NAME_MAX);
const personaContext = text('context', PERSONA_CONTEXT_MAX, 0);

export const personaCreateSchema = z.object({ name: personaName, context: personaContext.default('') });
export const personaUpdateSchema = z.object({ name: personaName.optional(), context: personaContext.optional() });

/** Paged like every list; the default page holds every persona a site may have. */
export const personaListQuerySchema = z.object(pagingShape(PERSONAS_PER_SITE));

export type PersonaCreate = z.output<typeof personaCreateSchema>;
export type PersonaUpdate = z.output<typeof personaUpdateSchema>;
export type PersonaListQuery = z.output<typeof personaListQuerySchema>;

function serializePersona(row: PersonaRow, promptCount: number) {
  return {
    id: row.id,
    name: row.name,
    context: row.context,
    promptCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const promptCount = (db: Db) =>
  db
    .selectFrom('personas as pe')
    .leftJoin('prompts as p', 'p.personaId', 'pe.id')
    .selectAll('pe')
    .select((eb) => eb.fn.count<number>('p.id').as('promptCount'))
    .groupBy('pe.id');

async function findPersona(db: Db, siteId: number, personaId: number): Promise<PersonaRow> {
  const row = await db
    .selectFrom('personas')
    .selectAll()
    .where('id', '=', personaId)
    .where('siteId', '=', siteId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No persona with id ${personaId}`);
  return row;
}

/** A persona id given in a prompt body must be one of this site's personas: 422 naming the field otherwise. */
export async function assertPersonaOfSite(
  db: Db,
  siteId: number,
  personaId: number | null | undefined,
  field = 'personaId',
): Promise<void> {
  if (personaId === null || personaId === undefined) return;
  const row = await db
    .selectFrom('personas')
    .select('id')
    .where('id', '=', personaId)
    .where('siteId', '=', siteId)
    .executeTakeFirst();
  if (!row) throw new ValidationError({ [field]: `no persona with id ${personaId} in this project` });
}

async function assertNameFree(db: Db, siteId: number, name: string, exceptId?: number): Promise<void> {
  let q = db
    .selectFrom('personas')
    .select('id')
    .where('siteId', '=', siteId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  const dup = await q.executeTakeFirst();
  if (dup) throw new ConflictError(`A persona named ${name} already exists (id ${dup.id})`, { name: 'already exists' });
}

export async function listPersonas(ctx: AppContext, site: SiteRow, query: PersonaListQuery) {
  const [count, rows] = await Promise.all([
    ctx.db
      .selectFrom('personas')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow(),
    promptCount(ctx.db)
      .where('pe.siteId', '=', site.id)
      .orderBy(sql`lower(pe.name)`)
      .orderBy('pe.id')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
  ]);
  return {
    personas: rows.map((r) => serializePersona(r, Number(r.promptCount))),
    total: Number(count.n),
    page: query.page,
    perPage: query.perPage,
  };
}

export async function createPersona(ctx: AppContext, site: SiteRow, input: PersonaCreate) {
  return ctx.db.transaction().execute(async (trx) => {
    // Serialised per site (the lock prompts take), so two adds at once cannot both pass the limit.
    await lockSite(trx, site.id);
    const count = await trx
      .selectFrom('personas')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= PERSONAS_PER_SITE)
      throw new BadRequestError(
        `This project has ${PERSONAS_PER_SITE} personas, the most a project can have; remove some first`,
      );
    await assertNameFree(trx, site.id, input.name);
    const row = await trx
      .insertInto('personas')
      .values({ siteId: site.id, name: input.name, context: input.context })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { persona: serializePersona(row, 0) };
  });
}

export async function updatePersona(ctx: AppContext, site: SiteRow, personaId: number, input: PersonaUpdate) {
  return ctx.db.transaction().execute(async (trx) => {
    await lockSite(trx, site.id);
    const current = await findPersona(trx, site.id, personaId);
    if (input.name !== undefined && input.name !== current.name)
      await assertNameFree(trx, site.id, input.name, personaId);
    if (input.name !== undefined || input.context !== undefined) {
      await trx
        .updateTable('personas')
        .set({
          ...(input.name !== undefined && { name: input.name }),
          ...(input.context !== undefined && { context: input.context }),
          updatedAt: sql`now()`,
        })
        .where('id', '=', personaId)
        .execute();
    }
    const row = await promptCount(trx).where('pe.id', '=', personaId).executeTakeFirstOrThrow();
    return { persona: serializePersona(row, Number(row.promptCount)) };
  });
}

/** Its prompts lose the persona (and are asked without one from the next scan); the answer says how many. */
export async function deletePersona(ctx: AppContext, site: SiteRow, personaId: number) {
  return ctx.db.transaction().execute(async (trx) => {
    const persona = await findPersona(trx, site.id, personaId);
    const cleared = await trx
      .updateTable('prompts')
      .set({ personaId: null, updatedAt: sql`now()` })
      .where('siteId', '=', site.id)
      .where('personaId', '=', personaId)
      .executeTakeFirst();
    await trx.deleteFrom('personas').where('id', '=', personaId).execute();
    return {
      deleted: true,
      persona: { id: persona.id, name: persona.name },
      promptsCleared: Number(cleared.numUpdatedRows),
    };
  });
}
