/**
 * Version 2 of the schema: the tables and functions of queue mode on PostgreSQL, beside BullMQ's own jobs (which
 * live in BullMQ's schema): idempotency claims, the unfinished and running runs of each workflow, marks of refused
 * store attempts, replies too large for a notification, and the files of the binary store. Every row carries the
 * queue's scope (BullMQ's schema and the queue's name), so several queues share the tables. Times are epoch
 * milliseconds given by the caller, as the Redis scripts take them; rows that expire carry `expires_at`, indexed, so
 * the sweep is one range delete per table. `{S}` stands for the schema's name.
 */
export const V2 = `
CREATE TABLE {S}.queue_claims (scope text NOT NULL, job_id text NOT NULL, store_id text NOT NULL, fingerprint text NOT NULL,
  since bigint NOT NULL, expires_at bigint NOT NULL, PRIMARY KEY (scope, job_id));
CREATE INDEX queue_claims_by_expiry ON {S}.queue_claims (expires_at);
CREATE TABLE {S}.queue_unfinished (scope text NOT NULL, workflow_id text NOT NULL, job_id text NOT NULL, stored_at bigint NOT NULL,
  PRIMARY KEY (scope, workflow_id, job_id));
CREATE TABLE {S}.queue_running (scope text NOT NULL, workflow_id text NOT NULL, job_id text NOT NULL, lease_ends bigint NOT NULL,
  PRIMARY KEY (scope, workflow_id, job_id));
-- A store attempt's fate once its caller's deadline passed: refused by the web instance, or claimed by a worker.
CREATE TABLE {S}.queue_refused (scope text NOT NULL, store_id text NOT NULL, expires_at bigint NOT NULL, refused boolean NOT NULL,
  PRIMARY KEY (scope, store_id));
CREATE INDEX queue_refused_by_expiry ON {S}.queue_refused (expires_at);
CREATE TABLE {S}.queue_replies (reply_id bigserial PRIMARY KEY, message text NOT NULL, expires_at bigint NOT NULL);
CREATE INDEX queue_replies_by_expiry ON {S}.queue_replies (expires_at);
CREATE TABLE {S}.queue_files (scope text NOT NULL, file_id text NOT NULL, bytes bigint NOT NULL, expires_at bigint NOT NULL,
  PRIMARY KEY (scope, file_id));
CREATE INDEX queue_files_by_expiry ON {S}.queue_files (expires_at);
CREATE TABLE {S}.queue_file_chunks (scope text NOT NULL, file_id text NOT NULL, chunk integer NOT NULL, data bytea NOT NULL,
  expires_at bigint NOT NULL, PRIMARY KEY (scope, file_id, chunk));
CREATE INDEX queue_file_chunks_by_expiry ON {S}.queue_file_chunks (expires_at);
-- Two fingerprints differ when they are not equal and were made alike: with the same key-id prefix ("k1:"), or both
-- without one. Fingerprints made under different keys (a key rotation) cannot be compared: they count as the same.
CREATE FUNCTION {S}.queue_differs(stored text, given text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT stored IS DISTINCT FROM given AND substring(stored FROM '^[^:]*:') IS NOT DISTINCT FROM substring(given FROM '^[^:]*:') $$;
-- Admits one call (the ADMIT script of Redis, step for step): 'duplicate', 'retake', 'mismatch', 'pending', 'full'
-- or 'ok'. Racing admissions of one job id wait for each other on an advisory lock, and so do those counting one
-- workflow's runs (with the slot functions), so the answer never rests on what a racing call is changing.
CREATE FUNCTION {S}.queue_admit(bull_schema text, scope_of text, queue_name text, job text, workflow text, now_at bigint,
  max_queued bigint, track boolean, stale_ms bigint, given text, store text, claim_ms bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  job_data jsonb;
  claim {S}.queue_claims%ROWTYPE;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('workflow-webhooks:job:' || scope_of), hashtext(job));
  EXECUTE format('SELECT data FROM %I.job WHERE queue = $1 AND id = $2', bull_schema) INTO job_data USING queue_name, job;
  IF job_data IS NOT NULL THEN
    IF jsonb_typeof(job_data) = 'string' THEN
      BEGIN
        job_data := (job_data #>> '{}')::jsonb;
      EXCEPTION WHEN others THEN
        job_data := 'null'::jsonb;
      END;
    END IF;
    IF jsonb_typeof(job_data -> 'storeId') = 'string' AND EXISTS (SELECT 1 FROM {S}.queue_refused
        WHERE scope = scope_of AND store_id = job_data ->> 'storeId' AND refused AND expires_at > now_at) THEN
      RETURN 'retake';
    END IF;
    IF given <> '' AND jsonb_typeof(job_data -> 'fingerprint') = 'string' AND {S}.queue_differs(job_data ->> 'fingerprint', given) THEN
      RETURN 'mismatch';
    END IF;
    RETURN 'duplicate';
  END IF;
  IF given <> '' THEN
    SELECT * INTO claim FROM {S}.queue_claims WHERE scope = scope_of AND job_id = job AND expires_at > now_at;
    IF FOUND AND claim.store_id <> store AND now_at - claim.since < claim_ms THEN
      IF {S}.queue_differs(claim.fingerprint, given) THEN RETURN 'mismatch'; END IF;
      RETURN 'pending';
    END IF;
  END IF;
  IF max_queued >= 0 THEN
    PERFORM pg_advisory_xact_lock(hashtext('workflow-webhooks:workflow:' || scope_of), hashtext(workflow));
    DELETE FROM {S}.queue_unfinished WHERE scope = scope_of AND workflow_id = workflow AND stored_at <= now_at - stale_ms;
    DELETE FROM {S}.queue_running WHERE scope = scope_of AND workflow_id = workflow AND lease_ends <= now_at;
    IF (SELECT count(*) FROM {S}.queue_unfinished WHERE scope = scope_of AND workflow_id = workflow)
        - (SELECT count(*) FROM {S}.queue_running WHERE scope = scope_of AND workflow_id = workflow) >= max_queued THEN
      RETURN 'full';
    END IF;
  END IF;
  IF given <> '' THEN
    INSERT INTO {S}.queue_claims VALUES (scope_of, job, store, given, now_at, now_at + 2 * claim_ms)
      ON CONFLICT (scope, job_id) DO UPDATE SET store_id = EXCLUDED.store_id, fingerprint = EXCLUDED.fingerprint,
      since = EXCLUDED.since, expires_at = EXCLUDED.expires_at;
  END IF;
  IF track THEN
    INSERT INTO {S}.queue_unfinished VALUES (scope_of, workflow, job, now_at)
      ON CONFLICT (scope, workflow_id, job_id) DO UPDATE SET stored_at = EXCLUDED.stored_at;
  END IF;
  RETURN 'ok';
END $$;
-- Takes (or renews) one of a workflow's slots until lease_end: false when all are taken (the ACQUIRE script).
CREATE FUNCTION {S}.queue_acquire(scope_of text, workflow text, job text, now_at bigint, lease_end bigint, slots bigint)
  RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('workflow-webhooks:workflow:' || scope_of), hashtext(workflow));
  DELETE FROM {S}.queue_running WHERE scope = scope_of AND workflow_id = workflow AND lease_ends <= now_at;
  IF EXISTS (SELECT 1 FROM {S}.queue_running WHERE scope = scope_of AND workflow_id = workflow AND job_id = job)
      OR (SELECT count(*) FROM {S}.queue_running WHERE scope = scope_of AND workflow_id = workflow) < slots THEN
    INSERT INTO {S}.queue_running VALUES (scope_of, workflow, job, lease_end)
      ON CONFLICT (scope, workflow_id, job_id) DO UPDATE SET lease_ends = EXCLUDED.lease_ends;
    RETURN true;
  END IF;
  RETURN false;
END $$;
`;
