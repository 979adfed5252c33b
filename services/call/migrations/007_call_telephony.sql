-- How each call was carried: the carrier, the SIP trunk it went out
-- through, and the final SIP response to its INVITE. Every call so far went through the simulated
-- carrier; their SIP responses were not kept, so they stay null. Columns with a constant default
-- or none: no table rewrite.
ALTER TABLE call.calls
  ADD COLUMN carrier text NOT NULL DEFAULT 'simulated',
  ADD COLUMN trunk_id uuid,
  ADD COLUMN sip_code integer,
  ADD COLUMN sip_reason text;
