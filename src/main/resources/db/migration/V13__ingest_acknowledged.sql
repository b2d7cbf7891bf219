-- How far the gateway has acknowledged what the broker delivered (docs/live.md, "Messages delivered
-- again after a crash"): every MQTT message taken in a pass up to `through` (a journal seq) has had
-- its PUBACK sent. At start the samples logged after it are the only ones the broker can deliver
-- again; a message that repeats them, in order, is acknowledged and not taken a second time.
-- One row per ingest (today only 'mqtt'), the newest by seq.
CREATE TABLE ingest_acknowledged (
  source   text        PRIMARY KEY,
  through  bigint      NOT NULL,
  at       timestamptz NOT NULL,
  seq      bigint      NOT NULL
);
