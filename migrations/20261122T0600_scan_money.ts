import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    -- Prices of calls in flight. Available balance = balance - reserved; a
    -- reservation becomes a charge (ledger entry) when the answer is stored,
    -- or is released when the call fails.
    ALTER TABLE orgs ADD COLUMN reserved_micros bigint NOT NULL DEFAULT 0 CHECK (reserved_micros >= 0);
    ALTER TABLE orgs ADD CONSTRAINT orgs_reserved_within_balance CHECK (reserved_micros <= balance_micros);

    ALTER TABLE scans ADD COLUMN reserved_micros bigint NOT NULL DEFAULT 0 CHECK (reserved_micros >= 0);
    ALTER TABLE scans DROP CONSTRAINT scans_check;
    ALTER TABLE scans ADD CONSTRAINT scans_within_budget CHECK (trigger = 'import' OR spent_micros + reserved_micros <= budget_micros);
    ALTER TABLE scans ADD COLUMN cancel_requested_at timestamptz;

    -- A site's spend per calendar month (UTC), what the monthly cap is checked against.
    CREATE TABLE site_spend (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      month date NOT NULL,
      spent_micros bigint NOT NULL DEFAULT 0 CHECK (spent_micros >= 0),
      reserved_micros bigint NOT NULL DEFAULT 0 CHECK (reserved_micros >= 0),
      PRIMARY KEY (site_id, month)
    );

    -- Work submitted to a batch API or an app queue, polled by the scan job.
    CREATE TABLE scan_batches (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      scan_id integer NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
      provider text NOT NULL,
      model text NOT NULL,
      handle jsonb NOT NULL,
      -- [{id, promptId, priceMicros, context}] for each request in the batch
      items jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'abandoned')),
      submitted_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    );
    CREATE INDEX scan_batches_scan_idx ON scan_batches (scan_id) WHERE status = 'pending';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    DROP TABLE scan_batches, site_spend;
    ALTER TABLE scans DROP COLUMN cancel_requested_at, DROP CONSTRAINT scans_within_budget, DROP COLUMN reserved_micros;
    ALTER TABLE scans ADD CONSTRAINT scans_check CHECK (spent_micros <= budget_micros OR trigger = 'import');
    ALTER TABLE orgs DROP CONSTRAINT orgs_reserved_within_balance, DROP COLUMN reserved_micros;
  `.execute(db);
}
