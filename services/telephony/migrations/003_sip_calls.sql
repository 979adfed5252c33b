-- Real (SIP) calls this service dialed. A row is created once per call id by the dial request
-- (a re-sent dial finds it and dials nothing), belongs to the instance that carries its media,
-- and moves dialing -> ringing -> answered -> ended; `sequence` is the last progress event
-- published for it. Every progress change and its event commit together (the outbox), and a
-- change is written only while the call has not ended, so exactly one `ended` event exists.
CREATE TABLE telephony.calls (
  call_id uuid PRIMARY KEY,
  account_id uuid NOT NULL,
  trunk_id uuid NOT NULL,
  instance text NOT NULL,
  state text NOT NULL DEFAULT 'dialing' CHECK (state IN ('dialing', 'ringing', 'answered', 'ended')),
  sequence integer NOT NULL DEFAULT 0,
  answered_at timestamptz,
  ended_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Live calls by instance: the sweeper finds the calls of a lapsed instance without reading ended ones.
CREATE INDEX calls_live_idx ON telephony.calls (instance) WHERE state <> 'ended';

-- One lease per running telephony instance, renewed by its heartbeat. An instance whose lease
-- lapsed is dead: any instance ends its live calls (their media died with it).
CREATE TABLE telephony.instances (
  id text PRIMARY KEY,
  renewed_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz NOT NULL
);

-- The latest OPTIONS keep-alive result per trunk. `next_check_at` is claimed by one instance at a
-- time, so replicas share the pings instead of each pinging every trunk.
CREATE TABLE telephony.trunk_health (
  trunk_id uuid PRIMARY KEY REFERENCES telephony.trunks (id) ON DELETE CASCADE,
  ok boolean,
  latency_ms integer,
  sip_code integer,
  last_error text,
  checked_at timestamptz,
  next_check_at timestamptz NOT NULL
);
