-- The SIP trunk scopes joined the scope list. A key that held every scope before them was a
-- full-access key (the development key, or one created without a list): it keeps full access.
-- Keys limited to some scopes stay as they were.
UPDATE gateway.api_keys
SET scopes = scopes || ARRAY['trunks:read', 'trunks:write']::text[]
WHERE scopes @> ARRAY[
    'agents:read', 'agents:write', 'calls:read', 'calls:write', 'campaigns:read', 'campaigns:write'
  ]::text[]
  AND NOT scopes && ARRAY['trunks:read', 'trunks:write']::text[];
