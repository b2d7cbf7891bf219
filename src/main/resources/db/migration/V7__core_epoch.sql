-- The core of a site that holds its advisory lock, and how many times the lock changed hands
-- (docs/standby.md). The epoch goes into every command id the holder issues.
CREATE TABLE core_epoch (
  site     text PRIMARY KEY,
  epoch    bigint NOT NULL,
  holder   text NOT NULL,
  taken_at timestamptz NOT NULL
);
