import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { startOfUtcMonth, utcMonthFirstDay } from '../../dates.ts';

/**
 * Answers and their facts live in one partition per month: the month their
 * scan was created in (migration 20261127T1300, docs/decisions.md). A
 * month's two partitions are made ahead by `ensure_answer_month` (a SQL
 * function, so the migration and this code share one definition); there is
 * no DEFAULT partition, so an answer for a month nobody made is refused
 * rather than put somewhere retention cannot drop.
 */

/** How many months after the current one are made ahead by the nightly job. */
export const MONTHS_AHEAD = 2;

/** Makes the partitions of each month from `from`'s to `to`'s when missing; returns the months it made. */
export async function ensureAnswerMonths(db: Executor, from: Date, to: Date = from): Promise<string[]> {
  const made: string[] = [];
  for (let m = startOfUtcMonth(from); m <= to; m = startOfUtcMonth(m, -1)) {
    const month = utcMonthFirstDay(m);
    const { rows } = await sql<{ made: boolean }>`SELECT ensure_answer_month(${month}::date) AS made`.execute(db);
    if (rows[0]?.made) made.push(month);
  }
  return made;
}

/** The months that have partitions, oldest first (from the partitions' bounds, not their names). */
export async function answerMonths(db: Executor): Promise<string[]> {
  const { rows } = await sql<{ month: string }>`
    SELECT substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \\(''([0-9-]+)''\\)') AS month
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'answers'::regclass
     ORDER BY 1`.execute(db);
  return rows.map((r) => r.month);
}

/**
 * Detaches and drops one month of answers and facts (facts first: they
 * reference the answers). Takes a brief ACCESS EXCLUSIVE lock on both
 * parents; with `lock_timeout` it gives up rather than queue every reader
 * behind it, and the next night tries again. Ledger entries keep their
 * answer ids (no foreign key: money history outlives answers); readers'
 * corrections of the month's answers go with them.
 */
export async function dropAnswerMonth(db: Executor, month: string, lockTimeoutMs = 5_000): Promise<void> {
  const suffix = month.slice(0, 4) + 'm' + month.slice(5, 7);
  const facts = sql.table(`answer_facts_y${suffix}`);
  const answers = sql.table(`answers_y${suffix}`);
  await sql`SET LOCAL lock_timeout = ${sql.lit(`${lockTimeoutMs}ms`)}`.execute(db);
  // Readers' corrections reference their answers: DETACH refuses a partition rows still point into.
  await sql`DELETE FROM mention_feedback WHERE answer_month = ${month}::date`.execute(db);
  // A detached facts partition keeps its foreign key to answers: it goes before the answers are detached.
  await sql`ALTER TABLE answer_facts DETACH PARTITION ${facts}`.execute(db);
  await sql`DROP TABLE ${facts}`.execute(db);
  await sql`ALTER TABLE answers DETACH PARTITION ${answers}`.execute(db);
  await sql`DROP TABLE ${answers}`.execute(db);
}
