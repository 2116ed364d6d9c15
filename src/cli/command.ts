import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { MAX_ID } from '../domain/common/index.ts';

/**
 * One operator command: its words (`org create`), a usage line, what it
 * does, its flags as a zod shape (kebab-case names, as typed), and `run`,
 * which returns what is printed as JSON (undefined for long-running ones).
 */
export interface Command<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  usage: string;
  summary: string;
  flags: S;
  /** The flag a single bare argument fills (`site delete 42` for `--site 42`), if any. */
  positional?: keyof S & string;
  run: (args: z.output<z.ZodObject<S>>, config: Config) => Promise<unknown>;
}

export const defineCommand = <S extends z.ZodRawShape>(command: Command<S>): Command =>
  // The table holds commands of many flag shapes; each `run` receives the output of its own shape.
  command as unknown as Command;

/** Wrong words, flags or values: exit 2 with the usage. */
export class UsageError extends Error {}

/** A check that found problems: its report is printed on stdout as usual, and the exit code is 1. */
export class CheckFailed extends Error {
  readonly report: unknown;
  constructor(message: string, report: unknown) {
    super(message);
    this.report = report;
  }
}

export const id = z.coerce.number().int().positive().max(MAX_ID);
export const count = z.coerce.number().int().min(0);

/** Parses argv against the command's flags; `--help` is every command's. */
export function parseFlags<S extends z.ZodRawShape>(
  command: Command<S>,
  argv: string[],
): z.output<z.ZodObject<S>> | 'help' {
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const [name, schema] of Object.entries(command.flags))
    options[name] = { type: isBoolean(schema) ? 'boolean' : 'string' };
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options,
      strict: true,
      allowPositionals: command.positional !== undefined,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return 'help';
  if (command.positional && positionals.length > 0) {
    if (positionals.length > 1 || values[command.positional] !== undefined)
      throw new UsageError(`give one ${command.positional} id, as an argument or as --${command.positional}`);
    values[command.positional] = positionals[0];
  }
  const parsed = z.object(command.flags).safeParse(values);
  if (!parsed.success)
    throw new UsageError(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

function isBoolean(schema: unknown): boolean {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap();
  return s instanceof z.ZodBoolean;
}

/** A context for one command: logs to stderr (quieter than info), a small pool, closed when done. */
export async function withContext<T>(config: Config, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const [{ closeContext, createContext }, { createLogger }, { loadJobTable }] = await Promise.all([
    import('../context.ts'),
    import('../logger.ts'),
    import('../../jobs/load-table.ts'),
  ]);
  const ctx = createContext(config, {
    role: 'cli',
    jobTable: loadJobTable,
    logger: createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { fd: 2 }),
  });
  try {
    return await fn(ctx);
  } finally {
    await closeContext(ctx);
  }
}
