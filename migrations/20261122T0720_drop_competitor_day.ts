import { sql, type Kysely } from 'kysely';

// Competitor numbers are read from rollup_competitor_period (migration 0700), which
// has day rows too; keeping this older table current only cost every write and rebuild.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE rollup_competitor_day`.execute(db);
}

// The table comes back empty; a reanalysis of each site would be needed to fill it, and nothing reads it.
export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE rollup_competitor_day (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      day date NOT NULL,
      provider text NOT NULL,
      competitor_id integer NOT NULL,
      mentioned integer NOT NULL DEFAULT 0,
      cited integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, day, provider, competitor_id)
    )`.execute(db);
}
