-- Whether the person called asked not to be called again (the conversation engine of a real call
-- says so; the simulated carrier's opt-out test number too). A constant default: no table rewrite,
-- and every call stored before reads false.
ALTER TABLE call.calls ADD COLUMN opted_out boolean NOT NULL DEFAULT false;
