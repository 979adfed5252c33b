-- Places a key's last count leased to the gateway instance that sent it (RateLimiter): returned
-- by that same statement, so the instance knows which places are its own.
ALTER TABLE gateway.rate_limit_windows ADD COLUMN granted integer NOT NULL DEFAULT 0;

-- Every gateway instance listens on this channel and drops what it trusted of a key the moment
-- its revocation commits, however it was made (the admin API of any instance, or SQL).
CREATE FUNCTION gateway.announce_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gateway_key_revoked', (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END)::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_revoked AFTER UPDATE OF revoked_at ON gateway.api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION gateway.announce_key_revoked();

CREATE TRIGGER api_keys_deleted AFTER DELETE ON gateway.api_keys
  FOR EACH ROW EXECUTE FUNCTION gateway.announce_key_revoked();
