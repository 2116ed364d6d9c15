import { sql, type Kysely } from 'kysely';

// Reservations by the block: one call holds the price of up to p_units answers,
// as many as the workspace balance, the site's monthly cap and the scan's budget
// all allow. A scan's provider lane reserves for several calls at once instead of
// one at a time; every call of every lane locked the workspace row, so at 60
// calls in flight the lanes queued on that one row. The checks are those of
// reserve_scan_money (0610/0640), applied to a count instead of a single price.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION reserve_scan_units(p_org integer, p_site integer, p_month date, p_scan integer, p_price bigint, p_units integer,
                                       OUT granted integer, OUT limited_by text)
    LANGUAGE plpgsql AS $$
    DECLARE
      v_room bigint;
      v_cap bigint;
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      granted := p_units;
      limited_by := NULL;
      IF p_units <= 0 THEN granted := 0; RETURN; END IF;
      SELECT balance_micros - reserved_micros INTO v_room FROM orgs WHERE id = p_org FOR NO KEY UPDATE;
      IF p_price > 0 AND v_room < granted * p_price THEN
        granted := greatest(0, v_room / p_price);
        limited_by := 'balance';
      END IF;
      IF granted = 0 THEN RETURN; END IF;
      INSERT INTO site_spend (site_id, month) VALUES (p_site, p_month) ON CONFLICT DO NOTHING;
      SELECT monthly_cap_micros INTO v_cap FROM sites WHERE id = p_site;
      SELECT v_cap - spent_micros - reserved_micros INTO v_room FROM site_spend WHERE site_id = p_site AND month = p_month FOR NO KEY UPDATE;
      IF v_cap IS NOT NULL AND p_price > 0 AND v_room < granted * p_price THEN
        granted := greatest(0, v_room / p_price);
        limited_by := 'cap';
      END IF;
      IF granted = 0 THEN RETURN; END IF;
      SELECT budget_micros - spent_micros - reserved_micros INTO v_room FROM scans WHERE id = p_scan FOR NO KEY UPDATE;
      IF p_price > 0 AND v_room < granted * p_price THEN
        granted := greatest(0, v_room / p_price);
        limited_by := 'budget';
      END IF;
      IF granted = 0 THEN RETURN; END IF;
      UPDATE orgs SET reserved_micros = reserved_micros + granted * p_price WHERE id = p_org;
      UPDATE site_spend SET reserved_micros = reserved_micros + granted * p_price WHERE site_id = p_site AND month = p_month;
      UPDATE scans SET reserved_micros = reserved_micros + granted * p_price WHERE id = p_scan;
    END $$;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION reserve_scan_units(integer, integer, date, integer, bigint, integer)`.execute(db);
}
