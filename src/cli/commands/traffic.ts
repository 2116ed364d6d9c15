import { createReadStream, promises as fs } from 'node:fs';
import { z } from 'zod';
import { LOG_FORMATS } from '../../logs/record.ts';
import { CheckFailed, defineCommand, id, UsageError, withContext } from '../command.ts';
import { progressLine } from '../progress.ts';

/**
 * Crawler traffic from the operator's side: a local log of any size
 * streamed into a site (in this process; the same import as the API's),
 * and the address ranges AI companies publish for their crawlers.
 */

/** A published ranges file is a few KB; anything past this is not one. */
const RANGES_FILE_MAX = 20 << 20;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

export const trafficCommands = [
  defineCommand({
    name: 'logs import',
    usage: 'logs import --project ID [--format auto|combined|json] FILE',
    summary:
      'Stream a server access log (plain or gzip, any size) into the project’s crawler traffic; each request counts once however often it is imported',
    flags: { project: id, file: z.string().min(1), format: z.enum(LOG_FORMATS).default('auto') },
    positional: 'file',
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const stat = await fs.stat(a.file).catch(() => null);
        if (!stat?.isFile()) throw new UsageError(`${a.file} is not a file`);
        const [
          { BUSY },
          { findSiteForOperator },
          { createLogImport, findLogImport, serializeLogImport, runLogImport },
        ] = await Promise.all([
          import('../../domain/common/index.ts'),
          import('../../domain/sites/index.ts'),
          import('../../domain/traffic/index.ts'),
        ]);
        const site = await findSiteForOperator(ctx, a.project);
        const row = await createLogImport(ctx, site.id, null, { source: 'cli', format: a.format });
        const line = progressLine();
        for (;;) {
          const ran = await runLogImport(ctx, site.id, row.id, {
            source: createReadStream(a.file, { highWaterMark: 256 * 1024 }),
            onProgress: (p) =>
              line.draw(
                `${mb(p.bytes)} of ${mb(stat.size)} read  lines ${p.lines.toLocaleString('en-US')}  counted ${p.counted.toLocaleString('en-US')}`,
              ),
          });
          if (ran !== BUSY) break;
          // A worker is importing another log of this site: this one starts when it is done.
          line.draw('waiting for another import of this project to finish');
          await new Promise((r) => setTimeout(r, 2000));
        }
        line.end();
        const done = serializeLogImport(await findLogImport(ctx, site.id, row.id));
        if (done.state === 'failed') throw new CheckFailed(`the import failed: ${done.error}`, { import: done });
        return { import: done };
      }),
  }),
  defineCommand({
    name: 'crawlers ranges load',
    usage: 'crawlers ranges load FILE [--agent NAME]',
    summary:
      'Load the address ranges an AI company publishes for a crawler (googlebot.json, gptbot.json...), replacing that crawler’s; log imports mark its hits from elsewhere spoofed',
    flags: { file: z.string().min(1), agent: z.string().min(1).optional() },
    positional: 'file',
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const stat = await fs.stat(a.file).catch(() => null);
        if (!stat?.isFile()) throw new UsageError(`${a.file} is not a file`);
        if (stat.size > RANGES_FILE_MAX)
          throw new UsageError(`${a.file} is larger than ${mb(RANGES_FILE_MAX)}: not a published ranges file`);
        const { loadRangesFile } = await import('../../domain/traffic/index.ts');
        return loadRangesFile(ctx, { text: await fs.readFile(a.file, 'utf8'), file: a.file, agent: a.agent });
      }),
  }),
];
