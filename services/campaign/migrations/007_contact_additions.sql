-- Contacts added to a campaign that has started (POST /v1/campaigns/{id}/contacts) arrive in chunks
-- (a bus message is bounded) and wait here, never dialed or listed, until the last one arrived:
-- then the whole addition joins the campaign in one transaction, or none of it does. An addition
-- whose gateway died midway is swept with the abandoned drafts.
CREATE TABLE campaign.contact_additions (
  addition_id uuid NOT NULL,
  campaign_id uuid NOT NULL REFERENCES campaign.campaigns (id) ON DELETE CASCADE,
  -- Position within the addition, from 0; the campaign's positions continue after its last.
  position integer NOT NULL,
  phone_number text,
  data jsonb NOT NULL,
  -- missing_phone or invalid_phone from its chunk; duplicate once the commit compared the numbers.
  skip_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (addition_id, position)
);
CREATE INDEX contact_additions_created_idx ON campaign.contact_additions (created_at);
