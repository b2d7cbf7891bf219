-- Sentinel's memory (docs/persistence.md). Every journal row carries `seq`, the journal's own
-- sequence: it orders the log across tables and restarts, and makes a re-sent row (spool replay
-- after a write that did commit) a no-op through ON CONFLICT DO NOTHING.

-- Every accepted sample, its native value as JSON and, for numbers, as a double for SQL.
-- Partitioned by day of receipt: retention drops whole days instead of deleting rows.
CREATE TABLE observations (
  seq          bigint           NOT NULL,
  point_id     text             NOT NULL,
  value        jsonb            NOT NULL,
  value_num    double precision,
  quality      text             NOT NULL,
  source       text             NOT NULL,
  observed_at  timestamptz,
  received_at  timestamptz      NOT NULL,
  PRIMARY KEY (received_at, seq)
) PARTITION BY RANGE (received_at);

-- Catches a row whose day has no partition yet (a clock far off): nothing is refused.
CREATE TABLE observations_default PARTITION OF observations DEFAULT;
CREATE INDEX observations_point_time ON observations (point_id, received_at);
CREATE INDEX observations_seq ON observations (seq);

-- Creates the daily partitions of [first_day, first_day + days), moving rows the default partition
-- already holds for those days into them.
CREATE FUNCTION sentinel_observation_partitions(first_day date, days int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  d date;
  name text;
  lo timestamptz;
  hi timestamptz;
  created int := 0;
BEGIN
  FOR i IN 0 .. days - 1 LOOP
    d := first_day + i;
    name := 'observations_' || to_char(d, 'YYYYMMDD');
    IF to_regclass(name) IS NULL THEN
      lo := d::timestamp AT TIME ZONE 'UTC';
      hi := (d + 1)::timestamp AT TIME ZONE 'UTC';
      CREATE TEMP TABLE IF NOT EXISTS sentinel_moving (LIKE observations) ON COMMIT DROP;
      WITH moved AS (
        DELETE FROM observations_default WHERE received_at >= lo AND received_at < hi RETURNING *)
      INSERT INTO sentinel_moving SELECT * FROM moved;
      EXECUTE format('CREATE TABLE %I PARTITION OF observations FOR VALUES FROM (%L) TO (%L)',
                     name, lo, hi);
      INSERT INTO observations SELECT * FROM sentinel_moving;
      DELETE FROM sentinel_moving;
      created := created + 1;
    END IF;
  END LOOP;
  RETURN created;
END $$;

-- Retention: drops the daily partitions that end on or before `cutoff` (and older stragglers in
-- the default partition). Returns the number of partitions dropped.
CREATE FUNCTION sentinel_drop_observations_before(cutoff date) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  dropped int := 0;
BEGIN
  FOR r IN
    SELECT c.relname FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
      JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relname = 'observations' AND c.relname ~ '^observations_[0-9]{8}$'
  LOOP
    IF to_date(substr(r.relname, 14), 'YYYYMMDD') + 1 <= cutoff THEN
      EXECUTE format('DROP TABLE %I', r.relname);
      dropped := dropped + 1;
    END IF;
  END LOOP;
  DELETE FROM observations_default WHERE received_at < cutoff::timestamp AT TIME ZONE 'UTC';
  RETURN dropped;
END $$;

-- What left the rules' claim diffs: an assertion (value) or a release (value NULL).
CREATE TABLE claim_changes (
  seq      bigint      PRIMARY KEY,
  at       timestamptz NOT NULL,
  rule_id  text        NOT NULL,
  point_id text        NOT NULL,
  band     text        NOT NULL,
  value    jsonb,
  reason   text        NOT NULL
);
CREATE INDEX claim_changes_at ON claim_changes (at);

-- Arbitration outcomes that left the engine: the commands the engine asked for (replay diffs these).
CREATE TABLE decisions (
  seq          bigint      PRIMARY KEY,
  at           timestamptz NOT NULL,
  point_id     text        NOT NULL,
  kind         text        NOT NULL CHECK (kind IN ('assert', 'release')),
  value        jsonb       NOT NULL,
  rule_id      text,
  band         text,
  deciding_key text        NOT NULL,
  contenders   jsonb       NOT NULL
);
CREATE INDEX decisions_at ON decisions (at);

-- Fired actions (notify, pulse ...), with their fields as rendered.
CREATE TABLE actions (
  seq       bigint      PRIMARY KEY,
  at        timestamptz NOT NULL,
  action_id text        NOT NULL,
  rule_id   text        NOT NULL,
  kind      text        NOT NULL,
  fields    jsonb       NOT NULL
);
CREATE INDEX actions_at ON actions (at);

-- Pattern firings of derived points (count, sequence, absence ...).
CREATE TABLE firings (
  seq        bigint      PRIMARY KEY,
  at         timestamptz NOT NULL,
  firing_id  text        NOT NULL,
  point_id   text        NOT NULL
);

-- Control events from the engine, the command plane, the gateway and the journal itself.
CREATE TABLE control_events (
  seq     bigint      PRIMARY KEY,
  at      timestamptz NOT NULL,
  kind    text        NOT NULL,
  subject text        NOT NULL,
  message text        NOT NULL
);
CREATE INDEX control_events_at ON control_events (at);
CREATE INDEX control_events_kind ON control_events (kind, at);

-- The latest value of each self point.
CREATE TABLE self_points (
  name  text        PRIMARY KEY,
  value jsonb       NOT NULL,
  at    timestamptz NOT NULL,
  seq   bigint      NOT NULL
);

-- The command plane's commands and every delivery state they went through.
CREATE TABLE commands (
  command_id text        PRIMARY KEY,
  seq        bigint      NOT NULL,
  point_id   text        NOT NULL,
  kind       text        NOT NULL,
  value      jsonb       NOT NULL,
  band       text,
  rule_id    text,
  issued_at  timestamptz NOT NULL,
  state      text        NOT NULL,
  state_at   timestamptz NOT NULL
);
CREATE INDEX commands_point_issued ON commands (point_id, issued_at);
CREATE TABLE command_states (
  seq        bigint      PRIMARY KEY,
  command_id text        NOT NULL,
  state      text        NOT NULL,
  at         timestamptz NOT NULL,
  detail     text        NOT NULL DEFAULT ''
);
CREATE INDEX command_states_command ON command_states (command_id, seq);

-- Restart: each point's last value (restored with quality `restored`), each action's last firing
-- (its cooldown), the derived points' state.
CREATE TABLE point_values (
  point_id text        PRIMARY KEY,
  value    jsonb       NOT NULL,
  quality  text        NOT NULL,
  since    timestamptz NOT NULL,
  seq      bigint      NOT NULL
);
CREATE TABLE action_cooldowns (
  rule_id       text        NOT NULL,
  action_index  int         NOT NULL,
  last_fired_at timestamptz NOT NULL,
  action_id     text        NOT NULL,
  seq           bigint      NOT NULL,
  PRIMARY KEY (rule_id, action_index)
);
CREATE TABLE derived_snapshots (
  seq      bigint      PRIMARY KEY,
  taken_at timestamptz NOT NULL,
  revision bigint      NOT NULL,
  snapshot jsonb       NOT NULL
);

-- Rule-set revisions as they were offered: the site's files, every problem found, and whether the
-- revision became active. A gateway starts from the last active one.
CREATE TABLE ruleset_revisions (
  revision     bigint      PRIMARY KEY,
  content_hash text        NOT NULL,
  source       text        NOT NULL,
  site         text        NOT NULL,
  files        jsonb       NOT NULL,
  problems     jsonb       NOT NULL,
  state        text        NOT NULL CHECK (state IN ('active', 'rejected', 'superseded')),
  recorded_at  timestamptz NOT NULL,
  activated_at timestamptz
);
CREATE INDEX ruleset_revisions_state ON ruleset_revisions (state, revision);

-- The audit log (seed 001): hash-chained in seq order. `ts` is the instant exactly as hashed;
-- `at` is the same instant for queries.
CREATE TABLE audit_log (
  seq              bigint      PRIMARY KEY,
  event_id         text        NOT NULL UNIQUE,
  kind             text        NOT NULL,
  rule_id          text        NOT NULL,
  revision         bigint      NOT NULL,
  matched_inputs   jsonb       NOT NULL,
  resolved_outputs jsonb       NOT NULL,
  band             text        NOT NULL,
  priority         int         NOT NULL,
  deciding_key     text        NOT NULL,
  contenders       jsonb       NOT NULL,
  device_id        text        NOT NULL,
  zone             text        NOT NULL,
  cycle            bigint      NOT NULL,
  ts               text        NOT NULL,
  at               timestamptz NOT NULL,
  reason           text        NOT NULL,
  detail           jsonb       NOT NULL,
  previous_hash    text        NOT NULL,
  hash             text        NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
