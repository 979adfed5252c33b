-- Whether the network kept a recording of the call (a SIP call's telephony instance writes it to the
-- recording store). Null for the simulated carrier, whose recordings are synthesised on request
-- from the call's duration. No default: no table rewrite.
ALTER TABLE call.calls ADD COLUMN recorded boolean;
