import { sql, type Kysely } from 'kysely';

/**
 * Site intelligence: the site's pages (from its sitemaps), each sitemap
 * import, and each crawler check (robots.txt access per AI crawler and the
 * llms.txt state). Pages are matched to answers' own citations by
 * `normalized_url`, the form analysis gives cited URLs. One import and one
 * check at a time per site is a database fact (partial unique indexes), as
 * for scans.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE pages (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      -- As the sitemap lists it.
      url text NOT NULL,
      normalized_url text NOT NULL,
      path text NOT NULL,
      -- The first part of the path ('' for the home page).
      section text NOT NULL,
      title text,
      lastmod timestamptz,
      title_fetched_at timestamptz,
      title_error text,
      first_seen_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (site_id, normalized_url)
    );
    CREATE INDEX pages_site_section_idx ON pages (site_id, section, normalized_url);

    CREATE TABLE sitemap_imports (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
      trigger text NOT NULL CHECK (trigger IN ('create', 'manual', 'schedule', 'cli')),
      requested_by integer REFERENCES users (id) ON DELETE SET NULL,
      -- Where the sitemaps came from: robots.txt Sitemap lines, or /sitemap.xml.
      found_via text CHECK (found_via IN ('robots', 'default')),
      sitemaps integer NOT NULL DEFAULT 0,
      urls integer NOT NULL DEFAULT 0,
      skipped integer NOT NULL DEFAULT 0,
      added integer NOT NULL DEFAULT 0,
      kept integer NOT NULL DEFAULT 0,
      titles integer NOT NULL DEFAULT 0,
      titles_failed integer NOT NULL DEFAULT 0,
      notes text[] NOT NULL DEFAULT '{}',
      error text,
      requested_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz
    );
    CREATE UNIQUE INDEX sitemap_imports_one_active ON sitemap_imports (site_id) WHERE status IN ('queued', 'running');
    CREATE INDEX sitemap_imports_site_idx ON sitemap_imports (site_id, id DESC);

    CREATE TABLE crawler_checks (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
      trigger text NOT NULL CHECK (trigger IN ('create', 'manual', 'schedule', 'cli')),
      requested_by integer REFERENCES users (id) ON DELETE SET NULL,
      robots_url text,
      robots_state text CHECK (robots_state IN ('found', 'missing', 'unreachable')),
      robots_status integer,
      robots_bytes integer,
      robots_note text,
      llms_url text,
      llms_state text CHECK (llms_state IN ('present', 'missing', 'invalid')),
      llms_status integer,
      llms_title text,
      llms_links integer,
      llms_note text,
      -- One item per AI crawler: agent, access, deciding line, group.
      crawlers jsonb NOT NULL DEFAULT '[]',
      error text,
      requested_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz
    );
    CREATE UNIQUE INDEX crawler_checks_one_active ON crawler_checks (site_id) WHERE status IN ('queued', 'running');
    CREATE INDEX crawler_checks_site_idx ON crawler_checks (site_id, id DESC);
    CREATE INDEX crawler_checks_site_done_idx ON crawler_checks (site_id, finished_at DESC) WHERE status = 'done';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE crawler_checks, sitemap_imports, pages`.execute(db);
}
