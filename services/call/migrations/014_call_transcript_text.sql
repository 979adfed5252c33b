-- Each call's transcript as the export writes it: the compact JSON text PostgreSQL makes of the
-- jsonb (json_strip_nulls(transcript::json)::text, db/export-sql.ts), written by the statement that
-- writes the transcript, so the export reads it instead of making it for every call of every export
-- (that was most of the database's time per exported call; docs/performance.md, "The export").
-- Null for calls stored before this migration: the export makes their text as before (COALESCE),
-- so they are exported exactly as before, at the old cost. Not back-filled here: that would write a
-- new version of every call of the history in one transaction (the table's size again, its WAL,
-- locks on calls being written), for a saving only when old calls are exported; a back-fill in
-- batches is safe at any time later. No default: no table rewrite.
ALTER TABLE call.calls ADD COLUMN transcript_text text;
