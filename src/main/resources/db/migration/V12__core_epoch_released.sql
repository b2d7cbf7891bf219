-- Whether the holder of the site's current epoch let the core lock go after a clean stop (its core
-- stopped, outputs in their safe states, its journal fed to PostgreSQL): the next holder then
-- starts at once instead of after sentinel.standby.takeover-grace (docs/standby.md).
ALTER TABLE core_epoch ADD COLUMN released_cleanly boolean NOT NULL DEFAULT false;
