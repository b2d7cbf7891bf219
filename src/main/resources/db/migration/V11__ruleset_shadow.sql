-- Shadow revisions (docs/shadow.md): a revision pushed with mode: shadow runs beside the active
-- set and never reaches a device. Kept apart from ruleset_revisions, whose rows are what ran (a
-- start takes the last 'active' one from there, and a site's files number after its highest): a
-- shadow is a candidate. At most one row per site is 'running'; a restart runs it again.
CREATE TABLE ruleset_shadow (
  id            bigserial   PRIMARY KEY,
  revision      bigint      NOT NULL,
  site          text        NOT NULL,
  content_hash  text        NOT NULL,   -- of its canonical body (mode: shadow included)
  promoted_hash text        NOT NULL,   -- of the same body without mode: the promoted revision's
  document      text        NOT NULL,   -- as received
  signer        text,
  reviewer      text,
  active_revision bigint    NOT NULL,   -- the revision it ran beside when it was accepted
  state         text        NOT NULL CHECK (state IN ('running', 'promoted', 'superseded',
                                                      'replaced', 'dropped')),
  received_at   timestamptz NOT NULL,
  ended_at      timestamptz,
  ended_by      bigint                  -- the revision that promoted, superseded or replaced it
);
CREATE UNIQUE INDEX ruleset_shadow_running ON ruleset_shadow (site) WHERE state = 'running';
