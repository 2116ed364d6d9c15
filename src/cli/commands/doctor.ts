import type { Check } from '../../domain/system/index.ts';
import { CheckFailed, defineCommand, withContext } from '../command.ts';

const MARK: Record<Check['verdict'], string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' };

/** One line per check on stderr, for the operator reading the terminal; stdout keeps the one JSON report. */
function printChecks(checks: Check[], out: NodeJS.WritableStream = process.stderr): void {
  const width = Math.max(...checks.map((c) => c.check.length));
  for (const c of checks) out.write(`  ${MARK[c.verdict]}  ${c.check.padEnd(width)}  ${c.detail}\n`);
}

/** `sightline doctor`: configuration, Postgres, Redis, migrations, workers, clocks and assistants, each with a verdict. */
export const doctorCommands = [
  defineCommand({
    name: 'doctor',
    usage: 'doctor',
    summary:
      'Check configuration, Postgres and Redis (versions, latency, eviction policy), migrations, live workers per queue, clock skew and which assistants are live or simulated (exit 1 on a failed check)',
    flags: {},
    run: (_a, config) =>
      withContext(config, async (ctx) => {
        const { runDoctor } = await import('../../domain/system/index.ts');
        const report = await runDoctor(ctx);
        printChecks(report.checks);
        const failed = report.checks.filter((c) => c.verdict === 'fail').map((c) => c.check);
        if (failed.length) throw new CheckFailed(`${failed.length} check(s) failed: ${failed.join(', ')}`, report);
        return report;
      }),
  }),
];
