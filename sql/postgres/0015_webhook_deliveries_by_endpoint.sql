-- The senders claim each endpoint's pending deliveries in production order, up to the room the
-- endpoint has on the node (src/webhooks/sender.ts): one index range per endpoint, in seq order.
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq)
  WHERE state = 'pending';
-- Events and attempts older than the retention are deleted by their time
-- (src/webhooks/retention.ts).
CREATE INDEX webhook_events_occurred ON webhook_events (occurred_at);
CREATE INDEX webhook_attempts_attempted ON webhook_attempts (attempted_at);
