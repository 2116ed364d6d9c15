/**
 * bench/prompt-import: a 2,000,000-character CSV of about 20,000 prompts
 * through the import domain function (parse, plan, one transaction of
 * batched statements) against a real database. Target: under 5 s.
 * Also times a dry run of the same file and a second import (every row
 * already tracked, so all skipped), and samples RSS every 10 ms for the peak.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { addMember } from '../src/domain/orgs/members.ts';
import { createOrg, setOrgLimits } from '../src/domain/orgs/orgs.ts';
import { importPrompts } from '../src/domain/prompts/import.ts';
import { promptImportSchema } from '../src/domain/prompts/schemas.ts';
import { createSite } from '../src/domain/onboarding/new-site.ts';
import { findSite } from '../src/domain/sites/sites.ts';
import { createUser } from '../src/domain/orgs/users.ts';
import { runBench } from './lib.ts';
import { loadJobTable } from '../jobs/load-table.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench';
const CHARS = 2_000_000;
const TARGET_MS = 5000;

const TOPICS = [
  'help desk',
  'live chat',
  'ticketing',
  'knowledge base',
  'customer portal',
  'SLA tracking',
  'chatbot',
  'call center',
];
const AUDIENCES = ['startups', 'agencies', 'schools', 'hospitals', 'retailers', 'banks', 'nonprofits', 'SaaS teams'];

/** About 100 characters a row: questions and search queries, a few categories, some with intent. */
function buildCsv(): { contents: string; rows: number } {
  const lines = ['text,category,intent,funnel'];
  let size = lines[0]!.length + 1;
  for (let i = 0; ; i++) {
    const topic = TOPICS[i % TOPICS.length];
    const audience = AUDIENCES[Math.floor(i / TOPICS.length) % AUDIENCES.length];
    const text =
      i % 3 === 0
        ? `best ${topic} software for ${audience} number ${i} in 2026`
        : `Which ${topic} tool, for ${audience} like team ${i}, is the best value this year?`;
    const line = `"${text}",${topic};${audience}${i % 5 === 0 ? ';Shortlist' : ''},${i % 2 ? 'commercial' : ''},${i % 4 === 0 ? 'decision' : ''}`;
    if (size + line.length + 1 > CHARS) break;
    lines.push(line);
    size += line.length + 1;
  }
  return { contents: lines.join('\n'), rows: lines.length - 1 };
}

function rssSampler() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

async function main() {
  await ensureDatabase(DATABASE_URL);
  const config = loadConfig({ DATABASE_URL, LOG_LEVEL: 'warn' });
  const ctx = createContext(config, { role: 'cli', jobTable: loadJobTable, dbPoolSize: 2 });
  const { db } = ctx;
  try {
    await migrateToLatest(db);
    const stamp = Date.now();
    const org = await createOrg(ctx, { name: `Bench import ${stamp}`, plan: 'enterprise' });
    await setOrgLimits(ctx, org.id, { promptsPerSite: 100_000 });
    const user = await createUser(ctx, { email: `bench-import-${stamp}@example.com`, name: 'Bench' });
    await addMember(ctx, { orgId: org.id, userId: user.id, role: 'owner' });
    const created = await createSite(
      ctx,
      { orgId: org.id, userId: user.id },
      { name: 'Bench import', url: `bench-import-${stamp}.com` },
    );
    const site = await findSite(db, org.id, created.id);

    const { contents, rows } = buildCsv();
    const run = async (dryRun: boolean) => {
      const input = promptImportSchema.parse({ contents, dryRun });
      const sampler = rssSampler();
      const started = performance.now();
      const result = await importPrompts(ctx, site, user.id, input);
      const ms = performance.now() - started;
      return { ms: Math.round(ms), peakRssMb: mb(sampler.stop()), result };
    };

    const rssBeforeMb = mb(process.memoryUsage().rss);
    const dry = await run(true);
    const first = await run(false);
    const again = await run(false);
    if (first.result.created !== rows) throw new Error(`expected ${rows} created, got ${first.result.created}`);
    if (again.result.skipped !== rows)
      throw new Error(`expected ${rows} skipped on the second import, got ${again.result.skipped}`);

    // The workspace goes once measured: its 18,394 prompts, left in the shared bench database, skewed
    // the planner's estimates for bench/reports' site. It has no answers, so no rollup rows to remove.
    await db.deleteFrom('orgs').where('id', '=', org.id).execute();
    await db.deleteFrom('users').where('id', '=', user.id).execute();
    console.log(
      JSON.stringify(
        {
          bench: 'prompt-import',
          date: new Date().toISOString().slice(0, 10),
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
          csvChars: contents.length,
          rows,
          categoriesCreated: first.result.categories.length,
          rssBeforeMb,
          dryRun: { ms: dry.ms, peakRssMb: dry.peakRssMb },
          import: {
            ms: first.ms,
            peakRssMb: first.peakRssMb,
            created: first.result.created,
            rowsPerSec: Math.round((rows / first.ms) * 1000),
          },
          reimportAllSkipped: { ms: again.ms, peakRssMb: again.peakRssMb, skipped: again.result.skipped },
          maxRssMb: mb(process.resourceUsage().maxRSS * 1024),
          targets: { importUnderMs: TARGET_MS, met: first.ms < TARGET_MS },
        },
        null,
        2,
      ),
    );
  } finally {
    await closeContext(ctx);
  }
}

runBench(main);
