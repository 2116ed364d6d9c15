import { sql, type Kysely } from 'kysely';

// Share links (variant A): a revocable public link to one site's report.
// Only the SHA-256 of a token is kept (like API keys); the prefix lets a
// person tell links apart in the list. Revoked rows stay, listed as revoked:
// revocation is permanent, and the hash is never reused.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE share_links (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      token_hash text NOT NULL UNIQUE,
      token_prefix text NOT NULL,
      label text CHECK (length(label) <= 100),
      created_by integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    );
    CREATE INDEX share_links_site_idx ON share_links (site_id, id);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE share_links`.execute(db);
}
