import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A reservation is a hold, not money moved: if the database itself crashed
  // and lost the last milliseconds of reservations, a resumed scan re-derives
  // what it holds (settleMissing, releaseScanReservations) and charges, which
  // stay synchronous, clamp at zero. Waiting for a WAL flush on every
  // reservation made scans disk-bound (40% iowait at 250 answers/s).
  await sql`
    CREATE OR REPLACE FUNCTION reserve_scan_money(p_org integer, p_site integer, p_month date, p_scan integer, p_price bigint)
    RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      v_cap bigint;
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
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
  // The function of 20261122T0610 without the asynchronous commit.
  await sql`
    CREATE OR REPLACE FUNCTION reserve_scan_money(p_org integer, p_site integer, p_month date, p_scan integer, p_price bigint)
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
