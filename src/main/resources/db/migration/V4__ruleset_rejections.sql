-- Pushed revision documents the gateway rejected (docs/revisions.md). They are not rows of
-- ruleset_revisions: their number may be unreadable, may repeat (a forged 8, then a signed 8), or
-- lie far above the active one, and ruleset_revisions numbers the site's own revisions. A gateway
-- still starts from the last row of ruleset_revisions in state 'active'.
CREATE TABLE ruleset_rejections (
  id           bigserial   PRIMARY KEY,
  revision     bigint,                 -- as the document gave it; NULL when it could not be read
  content_hash text,                   -- of its canonical body; NULL when it could not be read
  source       text        NOT NULL,   -- 'push'
  site         text        NOT NULL,
  outcome      text        NOT NULL DEFAULT 'rejected' CHECK (outcome = 'rejected'),
  reason       text        NOT NULL,   -- invalid, stale, unsigned, forged, unreviewed
  problems     jsonb       NOT NULL,   -- every problem, as on ruleset/status
  document     text,                   -- as received, when it was UTF-8 text; NULL otherwise
  received_at  timestamptz NOT NULL,
  active_revision bigint   NOT NULL    -- the revision that stayed active
);
CREATE INDEX ruleset_rejections_received ON ruleset_rejections (received_at);

-- Every revision offered, accepted or not, in the order it was recorded: what an operator asks
-- first when a push did not take.
CREATE VIEW ruleset_history AS
  SELECT recorded_at AS at, revision, content_hash, source, state AS outcome, NULL::text AS reason,
         problems
    FROM ruleset_revisions
  UNION ALL
  SELECT received_at, revision, content_hash, source, outcome, reason, problems
    FROM ruleset_rejections;
