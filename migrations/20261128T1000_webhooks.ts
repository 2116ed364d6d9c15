import { sql, type Kysely } from 'kysely';

/**
 * Webhooks (issue 27, CONTRACT.md "Webhooks"): a workspace's endpoints, the
 * outbox of events, one delivery per (webhook, event) and every attempt of it.
 *
 * - An event is written in the same transaction as the change that causes it
 *   (a scan's final update, a crawler check's result, a period's comparison),
 *   with its deliveries; a job then sends each delivery. `dedupe_key` makes an
 *   event that may only happen once (a scan's end, a month's cap) a database
 *   fact. `uid` is the `webhook-id` receivers deduplicate on.
 * - A delivery's `lease_until` keeps two runs of its job from sending at once;
 *   `next_attempt_at` is when its next attempt is due (the reconciler re-queues
 *   a pending delivery whose job went missing once it is overdue).
 * - The secret is kept as given: signing needs it (HMAC), so it cannot be
 *   hashed like an API key. The previous one signs too until it expires.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE webhooks (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id integer NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      url text NOT NULL CHECK (length(url) <= 2000),
      events text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 20),
      project_ids integer[] CHECK (cardinality(project_ids) <= 1000),
      format text NOT NULL DEFAULT 'standard' CHECK (format IN ('standard', 'slack')),
      description text CHECK (length(description) <= 500),
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      secret text NOT NULL,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      consecutive_failures integer NOT NULL DEFAULT 0,
      failing_since timestamptz,
      created_by integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhooks_org_idx ON webhooks (org_id, id);

    CREATE TABLE webhook_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      uid text NOT NULL UNIQUE DEFAULT ('evt_' || replace(gen_random_uuid()::text, '-', '')),
      org_id integer NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      -- Deleting a site removes its events (and their deliveries) like every row of it.
      site_id integer REFERENCES sites (id) ON DELETE CASCADE,
      type text NOT NULL,
      dedupe_key text UNIQUE,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

    CREATE TABLE webhook_deliveries (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      webhook_id integer NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      event_id bigint NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      last_status_code integer,
      last_error text,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      lease_until timestamptz,
      replays integer NOT NULL DEFAULT 0,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (webhook_id, event_id)
    );
    CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC);
    CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

    CREATE TABLE webhook_attempts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      delivery_id integer NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      replay boolean NOT NULL DEFAULT false,
      attempted_at timestamptz NOT NULL,
      status_code integer,
      error text,
      latency_ms integer NOT NULL,
      -- The first 1 KB of the receiver's answer.
      response text CHECK (length(response) <= 1024)
    );
    CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);

    -- Periods already compared for a site (the daily tick): a period's changes fire once.
    CREATE TABLE webhook_period_checks (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      period text NOT NULL CHECK (period IN ('week', 'month', 'quarter')),
      start date NOT NULL,
      checked_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (site_id, period, start)
    );

    -- balance.low fires under this; null: 10% of the last top-up.
    ALTER TABLE orgs ADD COLUMN balance_alert_micros bigint CHECK (balance_alert_micros >= 0);
    -- The last top-up is read at every scan's end: without this the read walks back over every charge since.
    CREATE INDEX ledger_entries_topup_idx ON ledger_entries (org_id, id DESC) WHERE kind = 'topup';
    -- llms.txt "changed" needs what it said, not only whether it was there.
    ALTER TABLE crawler_checks ADD COLUMN llms_sha256 text;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE crawler_checks DROP COLUMN llms_sha256;
    DROP INDEX ledger_entries_topup_idx;
    ALTER TABLE orgs DROP COLUMN balance_alert_micros;
    DROP TABLE webhook_period_checks, webhook_attempts, webhook_deliveries, webhook_events, webhooks;
  `.execute(db);
}
