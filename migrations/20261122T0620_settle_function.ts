import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Charges for a batch of stored answers in one round trip, so the money
  // rows are locked for one call rather than across a whole answer write.
  // Lock order org, site month, scan, as reserve_scan_money. A charge whose
  // site month holds less reserved than it (a crash across a month's end) is
  // taken from the reservation down to zero.
  await sql`
    CREATE FUNCTION settle_scan_money(p_org integer, p_site integer, p_scan integer, p_charges jsonb)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      v_total bigint;
      v_balance bigint;
      r record;
    BEGIN
      SELECT coalesce(sum((c ->> 'price')::bigint), 0) INTO v_total FROM jsonb_array_elements(p_charges) c;
      IF v_total = 0 THEN RETURN; END IF;
      UPDATE orgs SET balance_micros = balance_micros - v_total, reserved_micros = greatest(reserved_micros - v_total, 0)
       WHERE id = p_org RETURNING balance_micros INTO v_balance;
      FOR r IN SELECT (c ->> 'month')::date AS month, sum((c ->> 'price')::bigint) AS amount
                 FROM jsonb_array_elements(p_charges) c GROUP BY 1 ORDER BY 1 LOOP
        INSERT INTO site_spend (site_id, month) VALUES (p_site, r.month) ON CONFLICT DO NOTHING;
        UPDATE site_spend SET spent_micros = spent_micros + r.amount, reserved_micros = greatest(reserved_micros - r.amount, 0)
         WHERE site_id = p_site AND month = r.month;
      END LOOP;
      UPDATE scans SET spent_micros = spent_micros + v_total, reserved_micros = greatest(reserved_micros - v_total, 0) WHERE id = p_scan;
      INSERT INTO ledger_entries (org_id, kind, amount_micros, balance_after_micros, site_id, scan_id, answer_id, description)
      SELECT p_org, 'charge', -(c ->> 'price')::bigint,
             v_balance + v_total - sum((c ->> 'price')::bigint) OVER (ORDER BY ord),
             p_site, p_scan, (c ->> 'answerId')::bigint, c ->> 'description'
        FROM jsonb_array_elements(p_charges) WITH ORDINALITY AS t(c, ord);
    END $$;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION settle_scan_money(integer, integer, integer, jsonb)`.execute(db);
}
