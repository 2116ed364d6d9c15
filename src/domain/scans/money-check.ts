import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';

/**
 * The money invariants, checked across every workspace: the balance is the
 * ledger's sum, what a workspace holds reserved is what its scans hold, no
 * reservation is negative, a finished scan holds nothing, every stored
 * answer with a cost has exactly one charge of that cost, and a scan's spend
 * is the sum of its charges. Run by `sightline money check` and the tests.
 */
export interface MoneyProblem {
  orgId: number;
  scanId?: number;
  problem: string;
}

export async function checkMoney(
  ctx: AppContext,
): Promise<{ ok: boolean; workspaces: number; problems: MoneyProblem[] }> {
  const db = ctx.db;
  const [orgs, scans, answers, siteSpend] = await Promise.all([
    sql<{ orgId: number; balance: number; reserved: number; ledger: number; scansReserved: number }>`
      SELECT o.id AS "orgId", o.balance_micros AS balance, o.reserved_micros AS reserved,
             coalesce((SELECT sum(amount_micros) FROM ledger_entries l WHERE l.org_id = o.id), 0)::bigint AS ledger,
             coalesce((SELECT sum(reserved_micros) FROM scans s WHERE s.org_id = o.id), 0)::bigint AS "scansReserved"
        FROM orgs o ORDER BY o.id`.execute(db),
    sql<{ orgId: number; scanId: number; status: string; reserved: number; spent: number; charged: number }>`
      SELECT s.org_id AS "orgId", s.id AS "scanId", s.status, s.reserved_micros AS reserved, s.spent_micros AS spent,
             coalesce((SELECT -sum(amount_micros) FROM ledger_entries l WHERE l.scan_id = s.id AND l.kind = 'charge'), 0)::bigint AS charged
        FROM scans s
       WHERE s.reserved_micros < 0
          OR (s.reserved_micros <> 0 AND s.status IN ('done', 'failed', 'cancelled'))
          OR (s.status IN ('done', 'failed', 'cancelled')
              AND s.spent_micros <> coalesce((SELECT -sum(amount_micros) FROM ledger_entries l WHERE l.scan_id = s.id AND l.kind = 'charge'), 0))
       ORDER BY s.id`.execute(db),
    sql<{ orgId: number; scanId: number; answerId: number; cost: number; charges: number; charged: number }>`
      SELECT s.org_id AS "orgId", a.scan_id AS "scanId", a.id AS "answerId", a.cost_micros AS cost,
             count(l.id)::int AS charges, coalesce(-sum(l.amount_micros), 0)::bigint AS charged
        FROM answers a JOIN scans s ON s.id = a.scan_id
        LEFT JOIN ledger_entries l ON l.answer_id = a.id AND l.kind = 'charge'
       WHERE s.status IN ('done', 'failed', 'cancelled')
       GROUP BY s.org_id, a.scan_id, a.id, a.cost_micros
      HAVING (a.cost_micros > 0 AND (count(l.id) <> 1 OR -sum(l.amount_micros) <> a.cost_micros)) OR (a.cost_micros = 0 AND count(l.id) > 0)
       ORDER BY a.id
       LIMIT 1000`.execute(db),
    sql<{ orgId: number; siteId: number; month: string; reserved: number }>`
      SELECT s.org_id AS "orgId", ss.site_id AS "siteId", ss.month::text AS month, ss.reserved_micros AS reserved
        FROM site_spend ss JOIN sites s ON s.id = ss.site_id
       WHERE ss.reserved_micros < 0
          OR (ss.reserved_micros > 0 AND NOT EXISTS (SELECT 1 FROM scans x WHERE x.site_id = ss.site_id AND x.status IN ('queued', 'running', 'cancelling')))`.execute(
      db,
    ),
  ]);
  const problems: MoneyProblem[] = [];
  for (const o of orgs.rows) {
    if (o.balance !== o.ledger)
      problems.push({ orgId: o.orgId, problem: `balance ${o.balance} is not the ledger's sum ${o.ledger}` });
    if (o.reserved !== o.scansReserved)
      problems.push({
        orgId: o.orgId,
        problem: `reserved ${o.reserved} is not what its scans hold (${o.scansReserved})`,
      });
    if (o.balance < 0 || o.reserved < 0)
      problems.push({ orgId: o.orgId, problem: `negative balance ${o.balance} or reserved ${o.reserved}` });
  }
  for (const s of scans.rows) {
    if (s.reserved < 0)
      problems.push({ orgId: s.orgId, scanId: s.scanId, problem: `scan reserved is negative (${s.reserved})` });
    else if (s.reserved !== 0)
      problems.push({
        orgId: s.orgId,
        scanId: s.scanId,
        problem: `${s.status} scan still holds ${s.reserved} reserved (orphaned)`,
      });
    if (s.spent !== s.charged)
      problems.push({
        orgId: s.orgId,
        scanId: s.scanId,
        problem: `scan spent ${s.spent} but was charged ${s.charged}`,
      });
  }
  for (const a of answers.rows) {
    problems.push({
      orgId: a.orgId,
      scanId: a.scanId,
      problem: `answer ${a.answerId} costs ${a.cost} but has ${a.charges} charge(s) of ${a.charged} in all`,
    });
  }
  for (const m of siteSpend.rows) {
    problems.push({
      orgId: m.orgId,
      problem: `site ${m.siteId} month ${m.month} holds ${m.reserved} reserved with no scan running`,
    });
  }
  return { ok: problems.length === 0, workspaces: orgs.rows.length, problems };
}
