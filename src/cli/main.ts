import { ConfigError, loadConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import { CheckFailed, parseFlags, UsageError, type Command } from './command.ts';
import { dataCommands } from './commands/data.ts';
import { doctorCommands } from './commands/doctor.ts';
import { LONG_RUNNING, processCommands } from './commands/processes.ts';
import { nameCommands } from './commands/names.ts';
import { scanCommands } from './commands/scans.ts';
import { siteIntelligenceCommands } from './commands/site-intelligence.ts';
import { webhookCommands } from './commands/webhooks.ts';
import { trafficCommands } from './commands/traffic.ts';
import { orgCommands } from './commands/orgs.ts';

/**
 * Operator CLI (CONTRACT.md "Operator CLI"), the entry point of every
 * process (`npx sightline <command>`): one JSON object on stdout and exit 0,
 * or a message on stderr and a non-zero exit (2 for a usage error). Each
 * command imports what it needs when it runs: loading every module up front
 * made every invocation take two seconds.
 */

const COMMANDS: Command[] = [
  ...processCommands,
  ...orgCommands,
  ...scanCommands,
  ...siteIntelligenceCommands,
  ...trafficCommands,
  ...nameCommands,
  ...dataCommands,
  ...webhookCommands,
  ...doctorCommands,
];

const USAGE = `usage: sightline <command> [flags]   (sightline <command> --help for one command)

${COMMANDS.map((c) => `  ${c.usage}\n      ${c.summary}`).join('\n')}`;

const commandUsage = (c: Command) => `usage: sightline ${c.usage}\n  ${c.summary}`;

function findCommand(argv: string[]): Command | undefined {
  const [three, two] = [argv.slice(0, 3).join(' '), argv.slice(0, 2).join(' ')];
  return (
    COMMANDS.find((c) => c.name === three) ??
    COMMANDS.find((c) => c.name === two) ??
    COMMANDS.find((c) => c.name === argv[0])
  );
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const command = findCommand(argv);
  if (!command) {
    process.stderr.write(`unknown command: ${argv.slice(0, 2).join(' ')}\n${USAGE}\n`);
    return 2;
  }
  try {
    const args = parseFlags(command, argv.slice(command.name.split(' ').length));
    if (args === 'help') {
      process.stdout.write(`${commandUsage(command)}\n`);
      return 0;
    }
    const result = await command.run(args, loadConfig());
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof CheckFailed) {
      process.stdout.write(`${JSON.stringify(err.report)}\n`);
      process.stderr.write(`sightline ${command.name}: ${err.message}\n`);
      return 1;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`sightline ${command.name}: ${err.message}\n${commandUsage(command)}\n`);
      return 2;
    }
    const message =
      err instanceof AppError || err instanceof ConfigError ? err.message : ((err as Error).stack ?? String(err));
    process.stderr.write(`sightline ${command.name}: ${message}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
// Long-running commands keep the event loop alive themselves.
if (code !== 0 || !LONG_RUNNING.includes(process.argv[2] ?? '') || process.argv.includes('--help')) process.exit(code);
