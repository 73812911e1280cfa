-- API servers keep the identities of the tokens they have seen in memory
-- (src/tokens/token-identity-cache.ts), so that a request costs no query to authenticate.
-- These triggers tell every listening server, on the channel `ledgerline_auth`, that an
-- identity may have changed; a server then forgets every identity it keeps. The notification
-- goes out when the transaction commits (PostgreSQL folds the notifications of one
-- transaction into one), so a revoked token, a new role or plan is seen by the next request
-- after it arrives, milliseconds after the commit.
--
-- What an identity is made of (findTokenIdentity): the token's row, its member's role and
-- whether the member is deleted, and the workspace's name, plan, time zone, base currency and
-- whether it is deleted. A new row changes no identity a server keeps (it keeps only those it
-- found), and `last_used_at`, which servers write once a minute, is left out on purpose.
CREATE FUNCTION notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('ledgerline_auth', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER api_tokens_auth_change
  AFTER UPDATE OF prefix, workspace_id, user_id, env, secret_sha256, scopes, revoked_at
  ON api_tokens FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_change();
CREATE TRIGGER api_tokens_auth_delete
  AFTER DELETE OR TRUNCATE ON api_tokens FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_change();

CREATE TRIGGER members_auth_change
  AFTER UPDATE OF workspace_id, user_id, role, deleted_at
  ON members FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_change();
CREATE TRIGGER members_auth_delete
  AFTER DELETE OR TRUNCATE ON members FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_change();

CREATE TRIGGER workspaces_auth_change
  AFTER UPDATE OF id, name, plan, base_currency, timezone, deleted_at
  ON workspaces FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_change();
CREATE TRIGGER workspaces_auth_delete
  AFTER DELETE OR TRUNCATE ON workspaces FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_change();
