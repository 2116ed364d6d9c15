import { sql, type Kysely } from 'kysely';

// Migrations are frozen in time, so they see the database untyped rather than
// through today's schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE orgs (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'starter', 'pro', 'enterprise')),
      -- NULL limit: the plan's default applies.
      limit_sites integer CHECK (limit_sites >= 0),
      limit_prompts_per_site integer CHECK (limit_prompts_per_site >= 0),
      limit_scans_per_month integer CHECK (limit_scans_per_month >= 0),
      limit_members integer CHECK (limit_members >= 0),
      balance_micros bigint NOT NULL DEFAULT 0 CHECK (balance_micros >= 0),
      report_name text,
      report_logo text,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE users (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      email text NOT NULL,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_key ON users (lower(email));

    CREATE TABLE memberships (
      org_id integer NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (org_id, user_id)
    );
    CREATE INDEX memberships_user_idx ON memberships (user_id);
    CREATE UNIQUE INDEX memberships_one_owner ON memberships (org_id) WHERE role = 'owner';

    CREATE TABLE invitations (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id integer NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      email text NOT NULL,
      role text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'cancelled')),
      token_hash text NOT NULL UNIQUE,
      invited_by integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX invitations_one_pending ON invitations (org_id, lower(email)) WHERE status = 'pending';

    CREATE TABLE api_keys (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id integer NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      created_by integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      prefix text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      role text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
      last_used_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX api_keys_org_idx ON api_keys (org_id);

    CREATE TABLE sites (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id integer NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      name text NOT NULL,
      url text NOT NULL,
      domain text NOT NULL,
      industry text,
      brand_terms text[] NOT NULL DEFAULT '{}',
      language text NOT NULL DEFAULT 'English',
      location text NOT NULL DEFAULT 'United States',
      scan_frequency_days integer NOT NULL DEFAULT 7 CHECK (scan_frequency_days BETWEEN 1 AND 365),
      monthly_cap_micros bigint CHECK (monthly_cap_micros > 0),
      scan_settings jsonb NOT NULL DEFAULT '{}',
      allowed_providers text[],
      schedule_enabled boolean NOT NULL DEFAULT false,
      schedule_batch boolean NOT NULL DEFAULT true,
      next_scan_at timestamptz,
      -- Bumped whenever the names analysis matches against change (brand book version).
      brand_version integer NOT NULL DEFAULT 1,
      created_by integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX sites_org_domain_key ON sites (org_id, domain);

    CREATE TABLE competitors (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      name text NOT NULL,
      domain text,
      aliases text[] NOT NULL DEFAULT '{}',
      color text,
      logo text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX competitors_site_name_key ON competitors (site_id, lower(name));

    -- Append-only; orgs.balance_micros is its running projection, updated in
    -- the same transaction as each entry.
    CREATE TABLE ledger_entries (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id integer NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('topup', 'charge', 'adjustment')),
      amount_micros bigint NOT NULL,
      balance_after_micros bigint NOT NULL CHECK (balance_after_micros >= 0),
      site_id integer REFERENCES sites (id) ON DELETE SET NULL,
      description text NOT NULL DEFAULT '',
      created_by integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX ledger_entries_org_time_idx ON ledger_entries (org_id, created_at);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE ledger_entries, competitors, sites, api_keys, invitations, memberships, users, orgs`.execute(db);
}
