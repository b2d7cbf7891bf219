-- The DSL's latches (rules whose hold_until has not held yet) are kept with the derived state:
-- a restart that forgot a latch would release a protective claim no condition has released.
-- Snapshots taken before this column existed held no latch.
ALTER TABLE derived_snapshots ADD COLUMN latches jsonb NOT NULL DEFAULT '[]'::jsonb;
