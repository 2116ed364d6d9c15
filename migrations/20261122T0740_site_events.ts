import { sql, type Kysely } from 'kysely';

// Site events (variant B): dated annotations (a release, a campaign, a model
// update) that trend charts draw. Read by site and date range.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE site_events (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      title text NOT NULL,
      date date NOT NULL,
      type text NOT NULL CHECK (type IN ('site', 'model', 'campaign', 'other')),
      note text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX site_events_site_date_idx ON site_events (site_id, date, id);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE site_events`.execute(db);
}
