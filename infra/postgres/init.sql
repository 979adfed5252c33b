-- One-time setup of a new PostgreSQL server for the voice platform, run by a superuser:
--   VOICE_DB_PASSWORD=... psql -v ON_ERROR_STOP=1 -U postgres -f infra/postgres/init.sql
-- The postgres image runs it from /docker-entrypoint-initdb.d/ on first start (compose.yaml).
--
-- It creates the application role and database only. The schemas (gateway, agent, call,
-- campaign, webhook, telephony) and their tables are created by the services' own migrations at start,
-- serialised by an advisory lock, so any number of replicas can start at once.
-- DATABASE_URL=postgres://voice:<password>@<host>:5432/voice

\set ON_ERROR_STOP on
-- psql 15+: read the password from the environment, never from this file.
\getenv voice_password VOICE_DB_PASSWORD
\if :{?voice_password}
\else
  DO $$ BEGIN RAISE EXCEPTION 'set VOICE_DB_PASSWORD to the password for the voice role'; END $$;
\endif

CREATE ROLE voice LOGIN PASSWORD :'voice_password';
-- The owner may create schemas in its database (needed by the migrations).
CREATE DATABASE voice OWNER voice ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' TEMPLATE template0;

\connect voice
-- Nothing lands in public by accident; each service works in its own schema. Per-session
-- timeouts are left to the services (and to postgresql.conf): a role-level lock_timeout would
-- also cut short the advisory lock that serialises migrations between starting replicas.
REVOKE ALL ON SCHEMA public FROM PUBLIC;
