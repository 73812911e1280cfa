-- Idempotent replay of creates (decisions 3 and 6), used by src/http/idempotency.ts.
--
-- 0001 made a first idempotency_keys for a two-step design (an in_progress row committed
-- before the write, completed after it). Nothing ever wrote to it, and that design can leave
-- a key stuck in_progress when the process dies between the two steps. A write now claims
-- its key inside its own transaction instead: the INSERT below comes first, so a concurrent
-- request with the same key waits on the unique index until the first commits (and then
-- replays its response) or rolls back (and then runs itself). A committed row therefore
-- always holds a completed 2xx response, and a crashed request leaves no row at all.
DROP TABLE idempotency_keys;

CREATE TABLE idempotency_keys (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  token_prefix text NOT NULL REFERENCES api_tokens (prefix) ON DELETE CASCADE,
  -- The Idempotency-Key header as sent: 1..255 visible ASCII characters, compared exactly.
  key text NOT NULL CHECK (key ~ '^[!-~]{1,255}$'),
  -- What makes a replay the same request: method, path as sent (query string included)
  -- and SHA-256 of the body in canonical JSON (idempotency.ts says why).
  method text NOT NULL,
  path text NOT NULL,
  body_sha256 bytea NOT NULL CHECK (length(body_sha256) = 32),
  -- The response exactly as sent. NULL only inside the claiming transaction, which fills
  -- both before it commits; no other session ever sees them NULL.
  response_status smallint CHECK (response_status BETWEEN 200 AND 299),
  response_body bytea,
  -- A row older than 24 hours is expired: its key counts as new and the row is replaced.
  -- Expired rows are also deleted in bulk now and then (idempotency.ts).
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, token_prefix, key),
  CHECK ((response_status IS NULL) = (response_body IS NULL))
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
