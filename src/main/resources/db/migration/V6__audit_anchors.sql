-- Signed heads of the audit chain (docs/persistence.md, "Audit anchors"): the gateway signs
-- (seq, hash) of its last durable audit record with its own key every N records and at least every
-- minute, publishes it retained on sentinel/<site>/audit/anchor and keeps it here, so that an
-- export whose tail was cut is told from a whole one.
CREATE TABLE audit_anchors (
  id          bigserial   PRIMARY KEY,
  site        text        NOT NULL,
  seq         bigint      NOT NULL,
  hash        text        NOT NULL,
  ts          timestamptz NOT NULL,
  public_key  text        NOT NULL,   -- base64 X.509 SubjectPublicKeyInfo of the gateway's key
  signature   text        NOT NULL,   -- base64 Ed25519 over the anchor's canonical JSON
  anchor      text        NOT NULL    -- the anchor as published (canonical JSON)
);
CREATE INDEX audit_anchors_seq ON audit_anchors (seq);
