import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;

    CREATE TABLE personas (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
      context text NOT NULL CHECK (length(context) <= 600),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX personas_site_idx ON personas (site_id);

    CREATE TABLE categories (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX categories_site_name_key ON categories (site_id, lower(name));

    CREATE TABLE prompts (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      text text NOT NULL CHECK (length(text) BETWEEN 3 AND 500),
      intent text NOT NULL DEFAULT 'informational' CHECK (intent IN ('informational', 'navigational', 'commercial', 'transactional')),
      funnel text NOT NULL DEFAULT 'awareness' CHECK (funnel IN ('awareness', 'consideration', 'decision')),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('draft', 'active', 'paused')),
      persona_id integer REFERENCES personas (id) ON DELETE SET NULL,
      -- Imported as a search query rather than a question; rewrite turns it into one.
      raw boolean NOT NULL DEFAULT false,
      created_by integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- CONTRACT.md: text is unique per site compared trimmed and case-insensitively.
    CREATE UNIQUE INDEX prompts_site_text_key ON prompts (site_id, lower(btrim(text)));
    CREATE INDEX prompts_site_status_idx ON prompts (site_id, status);
    CREATE INDEX prompts_site_created_idx ON prompts (site_id, created_at, id);
    CREATE INDEX prompts_persona_idx ON prompts (persona_id);
    CREATE INDEX prompts_text_trgm_idx ON prompts USING gin (text gin_trgm_ops);

    CREATE TABLE prompt_categories (
      prompt_id integer NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
      category_id integer NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
      PRIMARY KEY (prompt_id, category_id)
    );
    CREATE INDEX prompt_categories_category_idx ON prompt_categories (category_id);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE prompt_categories, prompts, categories, personas`.execute(db);
}
