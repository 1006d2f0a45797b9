/**
 * The registry's tables, as numbered migrations. `migrate()` brings a schema to the newest version this library knows,
 * each step in one transaction under an advisory lock, so several instances starting at once migrate it once; a
 * schema that a newer version of the library migrated is refused, with a message saying so. Times are epoch
 * milliseconds; listens, relayed calls, message ids and rate budgets expire by the database's clock (`now_ms()`).
 */
import { WebhookError } from '../core/errors.js';
import type { PostgresLink, Transaction } from './pool.js';
import { V4 } from './history-sql.js';
import { V2 } from './queue-schema.js';

/**
 * Version 1: every table of the registry, its clock, storing a wait (one statement, counting new waits against
 * maxWaiting one at a time near the limit), and the rate-limit charge: one statement per call that checks
 * every budget of the call and charges all or none (the logic of the Redis script, in PL/pgSQL). `{S}` stands for
 * the schema's name.
 */
const V1 = `
CREATE TABLE {S}.log_state (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), version bigint NOT NULL);
INSERT INTO {S}.log_state VALUES (true, 0);
CREATE TABLE {S}.changes (version bigint PRIMARY KEY, op text NOT NULL, subject text NOT NULL, data text);
CREATE TABLE {S}.workflows (workflow_id text PRIMARY KEY, workflow text NOT NULL);
CREATE TABLE {S}.routes (
  method text NOT NULL, path text NOT NULL,
  workflow_id text NOT NULL REFERENCES {S}.workflows ON DELETE CASCADE,
  PRIMARY KEY (method, path));
CREATE INDEX routes_by_workflow ON {S}.routes (workflow_id);
CREATE TABLE {S}.listens (listen_id text PRIMARY KEY, workflow_id text NOT NULL UNIQUE, record text NOT NULL, expires_at bigint NOT NULL);
CREATE TABLE {S}.test_routes (
  method text NOT NULL, path text NOT NULL,
  listen_id text NOT NULL REFERENCES {S}.listens ON DELETE CASCADE,
  PRIMARY KEY (method, path));
CREATE INDEX test_routes_by_listen ON {S}.test_routes (listen_id);
CREATE TABLE {S}.relays (listen_id text NOT NULL, step text NOT NULL, payload text NOT NULL, expires_at bigint NOT NULL, PRIMARY KEY (listen_id, step));
CREATE TABLE {S}.waits (wait_id text PRIMARY KEY, status text NOT NULL, entry text NOT NULL, resumed_at bigint, expires_at bigint NOT NULL);
CREATE INDEX waits_by_expiry ON {S}.waits (expires_at);
CREATE TABLE {S}.message_ids (digest text PRIMARY KEY, expires_at bigint NOT NULL);
CREATE TABLE {S}.rate_budgets (budget text PRIMARY KEY, calls integer NOT NULL, window_ends bigint NOT NULL);
CREATE TABLE {S}.calls (seq bigserial PRIMARY KEY, call text NOT NULL);
CREATE FUNCTION {S}.now_ms() RETURNS bigint LANGUAGE sql VOLATILE
  AS $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;
CREATE FUNCTION {S}.put_wait(id text, new_status text, new_entry text, new_resumed_at bigint, new_expires_at bigint,
  expect text, max_waiting integer, now_at bigint) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  current_status text;
BEGIN
  SELECT status INTO current_status FROM {S}.waits WHERE wait_id = id FOR UPDATE;
  IF expect IS NOT NULL AND current_status IS DISTINCT FROM expect THEN RETURN 0; END IF;
  -- Far from the limit, new waits need no lock: fewer can be racing than the server has connections. Near it, they
  -- are counted one at a time, so racing ones never pass max_waiting together.
  IF current_status IS NULL AND (SELECT count(*) FROM {S}.waits WHERE expires_at > now_at)
      + current_setting('max_connections')::integer >= max_waiting THEN
    PERFORM pg_advisory_xact_lock(hashtext('{S}.waits'));
    IF (SELECT count(*) FROM {S}.waits WHERE expires_at > now_at) >= max_waiting THEN RETURN -1; END IF;
  END IF;
  INSERT INTO {S}.waits VALUES (id, new_status, new_entry, new_resumed_at, new_expires_at)
    ON CONFLICT (wait_id) DO UPDATE SET status = EXCLUDED.status, entry = EXCLUDED.entry,
    resumed_at = EXCLUDED.resumed_at, expires_at = EXCLUDED.expires_at;
  RETURN 1;
END $$;
CREATE FUNCTION {S}.charge_rate_limits(budgets text[], scopes text[], limits integer[], windows bigint[], max_keys integer[], per_caller boolean[])
  RETURNS TABLE (allowed boolean, remaining integer[], reset_ms bigint[]) LANGUAGE plpgsql AS $$
DECLARE
  n integer := cardinality(budgets);
  now_at bigint := {S}.now_ms();
  every_key text[];
  used text[] := '{}'; counts integer[] := '{}'; lefts bigint[] := '{}'; fresh boolean[] := '{}';
  ok boolean := true;
  found_calls integer; found_ends bigint; so_far integer; chosen text;
BEGIN
  SELECT array_agg(k ORDER BY k) INTO every_key FROM (
    SELECT unnest(budgets) UNION SELECT 'opened:' || unnest(scopes) UNION SELECT unnest(scopes) || ':overflow') AS keys(k);
  -- Every row the call may touch exists and is locked, in one order, so racing calls wait for each other, never deadlock.
  INSERT INTO {S}.rate_budgets SELECT k, 0, 0 FROM unnest(every_key) AS k ORDER BY k ON CONFLICT DO NOTHING;
  PERFORM 1 FROM {S}.rate_budgets WHERE budget = ANY (every_key) ORDER BY budget FOR UPDATE;
  FOR i IN 1 .. n LOOP
    chosen := budgets[i];
    SELECT calls, window_ends INTO found_calls, found_ends FROM {S}.rate_budgets WHERE budget = chosen;
    found_ends := coalesce(found_ends, 0);
    IF found_ends <= now_at AND per_caller[i] THEN
      SELECT CASE WHEN window_ends > now_at THEN calls ELSE 0 END INTO so_far FROM {S}.rate_budgets WHERE budget = 'opened:' || scopes[i];
      IF coalesce(so_far, 0) >= max_keys[i] THEN
        chosen := scopes[i] || ':overflow';
        SELECT calls, window_ends INTO found_calls, found_ends FROM {S}.rate_budgets WHERE budget = chosen;
        found_ends := coalesce(found_ends, 0);
      END IF;
    END IF;
    used[i] := chosen;
    fresh[i] := found_ends <= now_at;
    counts[i] := CASE WHEN fresh[i] THEN 0 ELSE found_calls END;
    lefts[i] := CASE WHEN fresh[i] THEN windows[i] ELSE found_ends - now_at END;
    IF counts[i] >= limits[i] THEN ok := false; END IF;
  END LOOP;
  IF ok THEN
    FOR i IN 1 .. n LOOP
      IF fresh[i] THEN
        INSERT INTO {S}.rate_budgets VALUES (used[i], 1, now_at + windows[i])
          ON CONFLICT (budget) DO UPDATE SET calls = 1, window_ends = EXCLUDED.window_ends;
        IF used[i] = budgets[i] AND per_caller[i] THEN
          INSERT INTO {S}.rate_budgets AS b VALUES ('opened:' || scopes[i], 1, now_at + windows[i])
            ON CONFLICT (budget) DO UPDATE SET calls = CASE WHEN b.window_ends > now_at THEN b.calls + 1 ELSE 1 END,
            window_ends = CASE WHEN b.window_ends > now_at THEN b.window_ends ELSE EXCLUDED.window_ends END;
        END IF;
      ELSE
        UPDATE {S}.rate_budgets SET calls = calls + 1 WHERE budget = used[i];
      END IF;
      counts[i] := counts[i] + 1;
    END LOOP;
  END IF;
  RETURN QUERY SELECT ok,
    ARRAY(SELECT greatest(0, limits[j] - counts[j]) FROM generate_series(1, n) AS j ORDER BY j),
    ARRAY(SELECT greatest(1, lefts[j]) FROM generate_series(1, n) AS j ORDER BY j);
END $$;
`;

/**
 * Version 3: keys the deployment keeps in its database, each written once by the first instance to load (the rate
 * limits' digest key, name `rate-limit digest`). A table of its own, so that a role granted SELECT on `rate_budgets`
 * alone cannot read the key that makes the budgets' names unmatchable.
 */
const V3 = `
CREATE TABLE {S}.deployment_keys (name text PRIMARY KEY, key bytea NOT NULL);
`;

/** The migrations in order: index + 1 is the version each brings the schema to. Never edit one that shipped. */
export const MIGRATIONS: readonly string[] = [V1, V2, V3, V4];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** A migration may wait for another instance's: it gets longer than a change. */
const MIGRATION_TIMEOUT_MS = 30_000;

/** One advisory lock per schema name, so migrations of two schemas never wait on each other. */
const LOCK = 'SELECT pg_advisory_xact_lock(hashtext($1))';

function sqlOf(migration: string, schema: string): string {
  return migration.replaceAll('{S}.', `${schema}.`);
}

async function versionIn(sql: Transaction, schema: string): Promise<number> {
  const exists = await sql('SELECT to_regclass($1) IS NOT NULL AS present', [`${schema}.schema_version`]);
  if (exists.rows[0]?.present !== true) return 0;
  const found = await sql(`SELECT max(version) AS version FROM ${schema}.schema_version`);
  return Number(found.rows[0]?.version ?? 0);
}

function tooNew(schema: string, version: number): WebhookError {
  return new WebhookError('REGISTRY_UNAVAILABLE', `The PostgreSQL schema "${schema}" is at version ${version}, newer than this version of workflow-webhooks knows (${SCHEMA_VERSION}).`, {
    hint: 'A newer version of workflow-webhooks migrated this schema: upgrade workflow-webhooks on every instance, or point this one at another schema.',
  });
}

/**
 * Creates the schema or brings it to SCHEMA_VERSION, each step in one transaction under an advisory lock (any number
 * of instances may call it at once); resolves the version it found. Refuses a schema a newer library migrated.
 */
export async function migrateSchema(link: PostgresLink, schema: string): Promise<number> {
  return await link.transaction(async (sql) => {
    await sql(LOCK, [`workflow-webhooks:${schema}`]);
    const found = await versionIn(sql, schema);
    if (found > SCHEMA_VERSION) throw tooNew(schema, found);
    if (found === 0) {
      await sql(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await sql(`CREATE TABLE ${schema}.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    }
    for (let version = found + 1; version <= SCHEMA_VERSION; version += 1) {
      await sql(sqlOf(MIGRATIONS[version - 1] as string, schema));
      await sql(`INSERT INTO ${schema}.schema_version (version) VALUES ($1)`, [version]);
    }
    return { result: found };
  }, `migrating the schema "${schema}"`, Math.max(link.timeoutMs, MIGRATION_TIMEOUT_MS));
}

/** For `migrate: false`: the schema must be at exactly this version; what is missing or newer is said plainly. */
export async function checkSchema(link: PostgresLink, schema: string): Promise<void> {
  const found = await link.transaction(async (sql) => ({ result: await versionIn(sql, schema) }), `checking the schema "${schema}"`);
  if (found > SCHEMA_VERSION) throw tooNew(schema, found);
  if (found < SCHEMA_VERSION) {
    throw new WebhookError('REGISTRY_UNAVAILABLE', `The PostgreSQL schema "${schema}" is at version ${found}; this version of workflow-webhooks needs ${SCHEMA_VERSION}.`, {
      hint: 'Run the migrations first (migrate() of workflow-webhooks/postgres, as a user that may create tables), or let the registry run them (migrate: true).',
    });
  }
}

/**
 * A store's schema readied at its first use, once: migrated on `migrationLink` (the directUrl's, when given), or with
 * `migrate` false checked on `link`. A failure is tried again at the next use, so a store that started while the
 * database was away reaches it once it is back.
 */
export function schemaOnce(migrate: boolean, link: PostgresLink, migrationLink: PostgresLink, schema: string): () => Promise<unknown> {
  let ready: Promise<unknown> | undefined;
  return () => {
    ready ??= (migrate ? migrateSchema(migrationLink, schema) : checkSchema(link, schema)).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
}
