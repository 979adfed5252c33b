-- The admin lists of accounts and of an account's keys are read in their own order (created_at DESC,
-- id DESC) from an index, so a page, first or after a cursor, reads about page_size entries however
-- many rows there are. The keys' index replaces the one on (account_id, created_at), which also
-- served deleting an account's keys (its leading column is the same).
CREATE INDEX accounts_created_idx ON gateway.accounts (created_at DESC, id DESC);
DROP INDEX gateway.api_keys_account_idx;
CREATE INDEX api_keys_account_idx ON gateway.api_keys (account_id, created_at DESC, id DESC);
