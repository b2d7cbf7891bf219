-- Rows PostgreSQL refused (issue 13, item 3): set aside with the reason, so the journal flows on.
-- row_values is the row's column values as a JSON array (control characters escaped), so even a
-- value no text column can hold is kept here for an operator to look at.
CREATE TABLE dead_letters (
  id bigserial PRIMARY KEY,
  seq bigint NOT NULL,
  table_name text NOT NULL,
  row_values text NOT NULL,
  reason text NOT NULL,
  set_aside_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX dead_letters_row ON dead_letters (table_name, seq, md5(row_values));
