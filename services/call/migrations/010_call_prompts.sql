-- The prompts calls over SIP trunks were placed with, by their hash (calls.prompt_hash): the
-- telephony service's conversation engine needs the text when the call is dialed, which may be
-- long after placement (a queue, a takeover), and the agent may have changed meanwhile. Kept once
-- per distinct prompt, not in each call row (migration 004 says why rows carry no prompt).
CREATE TABLE call.prompts (
  hash text PRIMARY KEY,
  prompt text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
