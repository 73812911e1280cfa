-- Secrets the servers of one store share, made once: e.g. the key that signs list cursors,
-- so a cursor stays valid across restarts and on every server behind a load balancer.
CREATE TABLE server_secrets (
  name text PRIMARY KEY,
  secret bytea NOT NULL CHECK (length(secret) >= 32),
  created_at timestamptz NOT NULL DEFAULT now()
);
