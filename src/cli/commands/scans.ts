import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CheckFailed, defineCommand, id, UsageError, withContext } from '../command.ts';
import { bar, duration, progressLine } from '../progress.ts';

/** Scans and answers: start or watch a scan, import answers collected elsewhere. */
export const scanCommands = [
  defineCommand({
    name: 'reanalyse',
    usage: 'reanalyse --all | --project ID[,ID...]',
    summary:
      'Re-read stored answers with the current analysis rules and names (after an upgrade), drawing a progress bar; calls no assistant',
    flags: {
      all: z.boolean().optional(),
      project: z
        .string()
        .regex(/^\d+(,\d+)*$/, 'a project id or ids separated by commas')
        .optional(),
    },
    run: (a, config) => {
      if (!a.all === !a.project) throw new UsageError('give --all or --project, not both');
      return withContext(config, async (ctx) => {
        const { reanalysisOfSites } = await import('../../domain/reanalysis/index.ts');
        const progress = progressLine();
        const started = Date.now();
        const result = await reanalysisOfSites(
          ctx,
          a.all ? 'all' : (a.project as string).split(',').map(Number),
          (p) => {
            const seconds = Math.round((Date.now() - started) / 1000);
            const perSecond = seconds > 0 ? p.answersDone / seconds : 0;
            const left = perSecond > 0 ? Math.round((p.answers - p.answersDone) / perSecond) : null;
            progress.draw(
              `${bar(p.answers ? p.answersDone / p.answers : 1)} ${p.answersDone}/${p.answers} answers  ${p.sitesDone}/${p.sites} sites  ${duration(left)} left`,
            );
          },
        );
        progress.end();
        return result;
      });
    },
  }),
  defineCommand({
    name: 'money check',
    usage: 'money check',
    summary:
      'Check every workspace: balance is the ledger, reservations match scans, none negative or orphaned, one charge per paid answer (exit 1 on a problem)',
    flags: {},
    run: (_a, config) =>
      withContext(config, async (ctx) => {
        const { checkMoney } = await import('../../domain/scans/index.ts');
        const report = await checkMoney(ctx);
        if (!report.ok) throw new CheckFailed(`${report.problems.length} money problem(s) found`, report);
        return report;
      }),
  }),
  defineCommand({
    name: 'answers import',
    usage: 'answers import --project ID --file F.jsonl',
    summary: 'Import answers (one JSON object a line) as one scan with trigger import, analysed and rolled up',
    flags: { project: id, file: z.string().min(1) },
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const { findSiteForOperator } = await import('../../domain/sites/index.ts');
        const site = await findSiteForOperator(ctx, a.project);
        const { importAnswers, parseAnswerLines } = await import('../../domain/scans/index.ts');
        const rows = parseAnswerLines(await readFile(a.file, 'utf8'));
        const result = await importAnswers(ctx, site.orgId, site.id, rows);
        return { scanId: result.scanId, answers: result.answers, promptsCreated: result.promptsCreated };
      }),
  }),
  defineCommand({
    name: 'scan start',
    usage: 'scan start --project ID [--providers openai,gemini] [--samples 1-5] [--label TEXT] [--watch]',
    summary: "Start a scan as the site's creator; --watch draws its progress and prints the finished scan",
    flags: {
      project: id,
      providers: z.string().optional(),
      samples: z.coerce.number().optional(),
      label: z.string().optional(),
      watch: z.boolean().optional(),
    },
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const { scanRequestSchema } = await import('../../domain/scans/index.ts');
        const request = scanRequestSchema.safeParse({
          providers: a.providers
            ?.split(',')
            .map((p) => p.trim())
            .filter(Boolean),
          samples: a.samples,
          label: a.label ?? 'Started from the CLI',
        });
        if (!request.success)
          throw new UsageError(request.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join('; '));
        const { findSiteForOperator } = await import('../../domain/sites/index.ts');
        const site = await findSiteForOperator(ctx, a.project);
        const [{ startScan }, { watchScan }] = await Promise.all([
          import('../../domain/scans/index.ts'),
          import('../scan-watch.ts'),
        ]);
        const started = await startScan(ctx, site, site.createdBy, request.data);
        return a.watch ? watchScan(ctx, site, started.scan.id) : started;
      }),
  }),
  defineCommand({
    name: 'scan watch',
    usage: 'scan watch --project ID [--scan ID]',
    summary: "Draw a scan's progress (the site's latest without --scan) and print it when it ends",
    flags: { project: id, scan: id.optional() },
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const { findSiteForOperator } = await import('../../domain/sites/index.ts');
        const site = await findSiteForOperator(ctx, a.project);
        const { watchScan } = await import('../scan-watch.ts');
        return watchScan(ctx, site, a.scan ?? null);
      }),
  }),
];
