-- Each account's do-not-call list. The key (account_id, number) is the lookup of every placement
-- and makes an add idempotent (ON CONFLICT DO NOTHING). The list is read newest first by keyset
-- (created_at DESC, number DESC), hence the second index. call_id names the call in which the callee
-- opted out (source 'opt_out'); no foreign key: deleting history never touches the list.
-- Numbered 013: another branch adds call migrations 011 and 012.
CREATE TABLE call.do_not_call (
  account_id uuid NOT NULL,
  number text NOT NULL,
  reason text,
  source text NOT NULL CHECK (source IN ('api', 'import', 'opt_out')),
  call_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, number)
);
CREATE INDEX do_not_call_list_idx ON call.do_not_call (account_id, created_at DESC, number DESC);
