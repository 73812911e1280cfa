-- A workspace's webhook endpoints, events and delivery log outlive an import that replaces the
-- workspace (docs/webhooks.md, "Imports"). Such an import deletes the workspace row and inserts
-- it again in one transaction; a cascading reference took the endpoints with it, and a snapshot
-- does not carry them back. Checked at commit instead, the reference holds once the row is
-- back. Deleting a workspace for good deletes them first (src/store/delete-workspace.ts).
ALTER TABLE webhook_endpoints
  DROP CONSTRAINT webhook_endpoints_workspace_id_fkey,
  ADD CONSTRAINT webhook_endpoints_workspace_id_fkey FOREIGN KEY (workspace_id)
    REFERENCES workspaces (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE webhook_events
  DROP CONSTRAINT webhook_events_workspace_id_fkey,
  ADD CONSTRAINT webhook_events_workspace_id_fkey FOREIGN KEY (workspace_id)
    REFERENCES workspaces (id) DEFERRABLE INITIALLY DEFERRED;
