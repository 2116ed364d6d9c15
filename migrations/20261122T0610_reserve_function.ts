import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One round trip per reservation: the rows stay locked for microseconds, not
  // for several client round trips, which bounded scans to ~50 answers/s.
  // Rows are locked in the fixed order org, site month, scan, and FOR NO KEY
  // UPDATE: a plain FOR UPDATE conflicts with the key-share locks that
  // inserting answers and ledger entries (foreign keys to scans and orgs)
  // takes, and deadlocked with concurrent answer writes.
  await sql`
    CREATE FUNCTION reserve_scan_money(p_org integer, p_site integer, p_month date, p_scan integer, p_price bigint)
    RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      v_cap bigint;
    BEGIN
      PERFORM 1 FROM orgs WHERE id = p_org AND balance_micros - reserved_micros >= p_price FOR NO KEY UPDATE;
      IF NOT FOUND THEN RETURN 'balance'; END IF;
      INSERT INTO site_spend (site_id, month) VALUES (p_site, p_month) ON CONFLICT DO NOTHING;
      SELECT monthly_cap_micros INTO v_cap FROM sites WHERE id = p_site;
      PERFORM 1 FROM site_spend WHERE site_id = p_site AND month = p_month
        AND (v_cap IS NULL OR spent_micros + reserved_micros + p_price <= v_cap) FOR NO KEY UPDATE;
      IF NOT FOUND THEN RETURN 'cap'; END IF;
      PERFORM 1 FROM scans WHERE id = p_scan AND spent_micros + reserved_micros + p_price <= budget_micros FOR NO KEY UPDATE;
      IF NOT FOUND THEN RETURN 'budget'; END IF;
      UPDATE orgs SET reserved_micros = reserved_micros + p_price WHERE id = p_org;
      UPDATE site_spend SET reserved_micros = reserved_micros + p_price WHERE site_id = p_site AND month = p_month;
      UPDATE scans SET reserved_micros = reserved_micros + p_price WHERE id = p_scan;
      RETURN 'ok';
    END $$;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION reserve_scan_money(integer, integer, date, integer, bigint)`.execute(db);
}
