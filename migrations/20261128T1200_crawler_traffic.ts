import { sql, type Kysely } from 'kysely';

/**
 * AI crawler traffic from server logs (issue 28): each import of a log and
 * what it found, the pages crawled (a path a site), counters per period
 * (day, week, month, quarter, like the report rollups) of AI agents' hits
 * per page and status class and of assistants' referrals per landing page,
 * and what it takes to count a request once: a salt per site and day of
 * traffic, and a 64-bit salted hash of each counted request. No address,
 * User-Agent or Referer is stored. The companies' published crawler
 * address ranges are the operator's, for every site.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE crawler_log_imports (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
      source text NOT NULL CHECK (source IN ('upload', 'pull', 'cli')),
      format text NOT NULL CHECK (format IN ('auto', 'combined', 'json')),
      -- Formats the lines turned out to be in.
      formats text[] NOT NULL DEFAULT '{}',
      -- A pull's address as shown (no query: a presigned URL's signature is a credential).
      url text,
      -- What the job reads, dropped when it ends: the pull's whole address, or the posted bytes (gzip kept as sent).
      pull_url text,
      payload bytea,
      bytes bigint NOT NULL DEFAULT 0,
      lines bigint NOT NULL DEFAULT 0,
      counted bigint NOT NULL DEFAULT 0,
      duplicates bigint NOT NULL DEFAULT 0,
      skipped bigint NOT NULL DEFAULT 0,
      other bigint NOT NULL DEFAULT 0,
      agent_hits bigint NOT NULL DEFAULT 0,
      referrals bigint NOT NULL DEFAULT 0,
      first_day date,
      last_day date,
      -- A sample of the lines skipped: [{line, reason}].
      errors jsonb NOT NULL DEFAULT '[]',
      error text,
      -- Physical lines whose counts are committed: a retried job starts after them.
      resume_line bigint NOT NULL DEFAULT 0,
      -- Week, month and quarter counters not yet written (they are kept in memory for the whole import and
      -- written at its end): an import that stopped with them pending has them rebuilt from its days.
      rollups_pending boolean NOT NULL DEFAULT false,
      requested_by integer REFERENCES users (id) ON DELETE SET NULL,
      requested_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      progressed_at timestamptz,
      finished_at timestamptz
    );
    CREATE INDEX crawler_log_imports_site_idx ON crawler_log_imports (site_id, id DESC);
    CREATE INDEX crawler_log_imports_active_idx ON crawler_log_imports (site_id) WHERE status IN ('queued', 'running');

    CREATE TABLE traffic_paths (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      path text NOT NULL,
      -- The form own citations and pages are matched on (https, no www., no trailing slash).
      normalized_url text NOT NULL,
      -- A page a person reads, not a file (robots.txt, a sitemap, a script, an image).
      is_page boolean NOT NULL,
      -- The last day an AI agent fetched it (spoofed hits aside).
      last_crawled date,
      UNIQUE (site_id, path)
    );
    CREATE INDEX traffic_paths_url_idx ON traffic_paths (site_id, normalized_url);

    CREATE TABLE traffic_page_period (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      agent text NOT NULL,
      path_id integer NOT NULL,
      hits integer NOT NULL DEFAULT 0,
      -- From the agent's published ranges; from elsewhere while ranges were loaded; the rest could not be checked.
      verified integer NOT NULL DEFAULT 0,
      spoofed integer NOT NULL DEFAULT 0,
      s2xx integer NOT NULL DEFAULT 0,
      s3xx integer NOT NULL DEFAULT 0,
      s4xx integer NOT NULL DEFAULT 0,
      s5xx integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, agent, path_id)
    ) WITH (fillfactor = 70);

    CREATE TABLE traffic_agent_period (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      agent text NOT NULL,
      hits bigint NOT NULL DEFAULT 0,
      verified bigint NOT NULL DEFAULT 0,
      spoofed bigint NOT NULL DEFAULT 0,
      s2xx bigint NOT NULL DEFAULT 0,
      s3xx bigint NOT NULL DEFAULT 0,
      s4xx bigint NOT NULL DEFAULT 0,
      s5xx bigint NOT NULL DEFAULT 0,
      -- Written when an import ends, from the page rows: pages fetched, and the ten most fetched [{path, url, hits, ...}].
      pages integer NOT NULL DEFAULT 0,
      top jsonb NOT NULL DEFAULT '[]',
      PRIMARY KEY (site_id, period, start, agent)
    ) WITH (fillfactor = 70);

    -- Per page, all agents together, written when an import ends: what the report's page lists and the join
    -- with citations read (a few thousand rows a period where the per-agent rows are tens of thousands).
    CREATE TABLE traffic_period_pages (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      path_id integer NOT NULL,
      -- The path's, copied so the report's page lists read this table alone.
      path text NOT NULL,
      normalized_url text NOT NULL,
      is_page boolean NOT NULL,
      hits integer NOT NULL,
      spoofed integer NOT NULL,
      s2xx integer NOT NULL,
      s3xx integer NOT NULL,
      s4xx integer NOT NULL,
      s5xx integer NOT NULL,
      -- Agents that fetched it (spoofed hits aside), most hits first.
      agents text[] NOT NULL,
      PRIMARY KEY (site_id, period, start, path_id)
    );

    CREATE TABLE traffic_referral_period (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      assistant text NOT NULL,
      path_id integer NOT NULL,
      visits integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, assistant, path_id)
    ) WITH (fillfactor = 70);

    -- Per period, written when an import ends: pages crawled, the pages that served errors or redirects, the
    -- referrals per assistant (with top landing pages) and per landing page (with the assistants): JSON lists
    -- the report hands out as they are, so a read is one row, whatever the pages and assistants.
    CREATE TABLE traffic_period_totals (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      pages integer NOT NULL,
      status_pages jsonb NOT NULL,
      referral_assistants jsonb NOT NULL,
      referral_pages jsonb NOT NULL,
      PRIMARY KEY (site_id, period, start)
    );

    CREATE TABLE traffic_salts (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      day date NOT NULL,
      salt text NOT NULL,
      PRIMARY KEY (site_id, day)
    );

    -- The requests counted, as salted hashes. No foreign key: millions of rows are checked a batch at a time,
    -- and a site's deletion removes its rows itself (domain/sites/delete.ts).
    CREATE TABLE traffic_seen (
      site_id integer NOT NULL,
      day date NOT NULL,
      hash bigint NOT NULL,
      PRIMARY KEY (site_id, day, hash)
    );

    CREATE TABLE crawler_ranges (
      agent text NOT NULL,
      prefix cidr NOT NULL,
      source text NOT NULL,
      created_at text,
      loaded_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (agent, prefix)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE crawler_ranges, traffic_seen, traffic_salts, traffic_period_totals, traffic_period_pages, traffic_referral_period, traffic_agent_period, traffic_page_period, traffic_paths, crawler_log_imports`.execute(
    db,
  );
}
