-- Operator overrides in force are kept with the derived state and the latches: an operator who holds
-- a pump off for maintenance expects a restart to keep holding it until the override's end.
-- Each element: {"point", "value", "until", "by", "reason"}. Snapshots taken before this column
-- existed held no override.
ALTER TABLE derived_snapshots ADD COLUMN overrides jsonb NOT NULL DEFAULT '[]'::jsonb;
