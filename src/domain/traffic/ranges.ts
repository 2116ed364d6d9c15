import path from 'node:path';
import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { BadRequestError } from '../../errors.ts';
import { LOGGED_AGENTS } from '../../logs/agents.ts';
import { AddressRanges, parseRangesFile, RangesFileError } from '../../logs/ranges.ts';
import { AI_CRAWLERS } from '../../web/ai-crawlers.ts';

/**
 * The address ranges AI companies publish for their crawlers, loaded by the
 * operator (`sightline crawlers ranges load FILE`) for every site: a file
 * replaces what was loaded for its agent, in one transaction. Imports check
 * each hit against them (src/logs/ranges.ts).
 */

/** The agent a published file is for, by its name (`gptbot.json` is GPTBot's): the file name of each agent's `ranges` address. */
export function agentForFile(file: string): string | null {
  const name = path.basename(file).toLowerCase();
  for (const c of AI_CRAWLERS)
    if (c.ranges && path.basename(new URL(c.ranges).pathname).toLowerCase() === name) return c.agent;
  return null;
}

export async function loadRangesFile(ctx: AppContext, input: { text: string; file: string; agent?: string }) {
  const agent = input.agent
    ? LOGGED_AGENTS.find((a) => a.toLowerCase() === input.agent?.toLowerCase())
    : agentForFile(input.file);
  if (!agent) {
    const known = AI_CRAWLERS.filter((c) => c.ranges).map(
      (c) => `${path.basename(new URL(c.ranges as string).pathname)} (${c.agent})`,
    );
    throw new BadRequestError(
      input.agent
        ? `${input.agent} is not an AI agent Sightline knows; see GET /projects/:id/crawlers`
        : `which agent ${path.basename(input.file)} is for is not known from its name; say it with --agent, or use a file named as published: ${known.join(', ')}`,
    );
  }
  let parsed;
  try {
    parsed = parseRangesFile(input.text);
  } catch (err) {
    if (err instanceof RangesFileError) throw new BadRequestError(`${path.basename(input.file)}: ${err.message}`);
    throw err;
  }
  const source = path.basename(input.file);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('crawlerRanges').where('agent', '=', agent).execute();
    for (let i = 0; i < parsed.prefixes.length; i += 5000) {
      const chunk = parsed.prefixes.slice(i, i + 5000);
      // network(): a prefix written with host bits (192.0.2.1/24) is its network, as cidr requires.
      await sql`INSERT INTO crawler_ranges (agent, prefix, source, created_at)
                SELECT ${agent}, network(p::inet), ${source}, ${parsed.createdAt} FROM unnest(${chunk}::text[]) AS p
                ON CONFLICT DO NOTHING`.execute(trx);
    }
  });
  return {
    agent,
    prefixes: parsed.prefixes.length,
    createdAt: parsed.createdAt,
    source,
    ranges: await rangesSummary(ctx.db),
  };
}

/** Per agent with ranges loaded: how many prefixes, from which file, when. */
export async function rangesSummary(db: Db) {
  const rows = await db
    .selectFrom('crawlerRanges')
    .select([
      'agent',
      'source',
      (eb) => eb.fn.countAll<number>().as('prefixes'),
      (eb) => eb.fn.max('loadedAt').as('loadedAt'),
      (eb) => eb.fn.max('createdAt').as('createdAt'),
    ])
    .groupBy(['agent', 'source'])
    .orderBy('agent')
    .execute();
  return rows.map((r) => ({
    agent: r.agent,
    source: r.source,
    prefixes: Number(r.prefixes),
    createdAt: r.createdAt,
    loadedAt: r.loadedAt,
  }));
}

/** Every loaded range, for an import to check its hits against. */
/** The loaded ranges as rows (what a log reader's thread is given). */
export async function addressRangeRows(db: Db): Promise<{ agent: string; prefix: string }[]> {
  return (
    await sql<{ agent: string; prefix: string }>`SELECT agent, prefix::text AS prefix FROM crawler_ranges`.execute(db)
  ).rows;
}

export async function addressRanges(db: Db): Promise<AddressRanges> {
  return new AddressRanges(await addressRangeRows(db));
}
