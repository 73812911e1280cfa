-- What each export schedule remembers between its runs, in the store, so that every API node
-- of the store shares it and a schedule runs once across nodes, not once per node
-- (docs/exports.md, "Schedules"). A run holds an advisory lock on its schedule's id for as long
-- as it runs (src/exports/schedule-state.ts); this row is what the run reads under the lock and
-- writes when it is done. A schedule is named by its id in the schedules file.
CREATE TABLE export_schedule_state (
  schedule_id text PRIMARY KEY,
  -- When a node first knew the schedule: scheduled times before it are not owed.
  since timestamptz NOT NULL,
  last_scheduled_at timestamptz,
  last_run_folder text,
  -- The export journal position the last run read (load id and change number): the next
  -- incremental run exports what changed after it (docs/exports.md, "Incremental").
  last_load_id text,
  last_change_no bigint,
  -- The node that ran it last: the next time is its to run first (docs/exports.md).
  last_node text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
