-- Webhooks (docs/webhooks.md): a workspace's endpoints, the events produced from the committed
-- changes of the store (an outbox), one delivery per event and endpoint, and every attempt.
-- None of these tables is in the read model's publication: they are operational only.

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) <= 2048),
  -- NULL: every event type.
  events text[],
  description text CHECK (length(description) <= 500),
  enabled boolean NOT NULL DEFAULT true,
  -- `whsec_` + base64 of 32 random bytes. The previous secret still signs until
  -- previous_secret_until, after a rotation.
  secret text NOT NULL,
  previous_secret text,
  previous_secret_until timestamptz,
  -- Set when an event's last retry failed; cleared by a delivered event.
  failing_since timestamptz,
  -- Why the endpoint was disabled by the sender (failing for too long), when it was.
  disabled_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints (workspace_id, id);

-- One event per record per committed transaction. Its id is derived from the commit's position
-- and the record, so producing it again after a crash is the same row (ON CONFLICT DO NOTHING).
CREATE TABLE webhook_events (
  id text PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  type text NOT NULL,
  record_id text NOT NULL,
  commit_lsn pg_lsn NOT NULL,
  -- The commit's time: the body's `timestamp`.
  occurred_at timestamptz NOT NULL,
  -- The body as sent, signed as these bytes.
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_workspace ON webhook_events (workspace_id, occurred_at);

CREATE TABLE webhook_deliveries (
  -- Production order: a record's deliveries to one endpoint go out in this order.
  seq bigserial PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  record_id text NOT NULL,
  -- pending: to send (at next_attempt_at); delivered: a 2xx; failed: its retries ran out.
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- A node sending it holds it until then; past it, another node may take it again.
  claimed_until timestamptz,
  claimed_by text,
  finished_at timestamptz,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_record ON webhook_deliveries (endpoint_id, record_id, seq)
  WHERE state = 'pending';

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  attempted_at timestamptz NOT NULL,
  -- The receiver's status, or NULL when there was none (error says why).
  status_code integer,
  error text,
  duration_ms integer NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id DESC);
