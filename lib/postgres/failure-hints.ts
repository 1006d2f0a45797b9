/**
 * node-postgres' raw failures that a setting fixes — a server certificate the client does not trust, TLS asked of a
 * server without it, a wrong password, a database that does not exist, a role without a grant or without the right to
 * create — turned into sentences that name the
 * fix: the URL parameter or pool option to give, or the exact GRANT. A bare "self-signed certificate in certificate
 * chain" or "permission denied for sequence …" tells a host what broke, never what to change; the errors keep their
 * class, code and cause, only their message gains the fix, once.
 */

/** Where every grant of a role of least privilege is listed. */
const GRANTS_DOC = 'every grant: docs/postgres.md, "Least privilege"';

/** Node's codes for a certificate whose signer the client does not trust (OpenSSL's verify results). */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_SIGNATURE_FAILURE', 'CERT_UNTRUSTED', 'CERT_REJECTED',
]);
const EXPIRED = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

const TRUST_THE_CA = 'give the certificate of the authority that signed the server\'s certificate: sslmode=verify-full&sslrootcert=/path/to/ca.pem in the URL, or ssl: { ca } in the pool config or pg.Pool (with pg 8, sslmode=require checks the certificate as verify-full does; uselibpqcompat=true&sslmode=require gives libpq\'s meaning, encryption without a check)';

/** The role may not create: the migrations belong to a role that may. */
const MIGRATE_ELSEWHERE = 'This role may not create or alter the schema. Start the registry, the web queue and the workers with migrate: false, and run the migrations once per deployment as a role that may create: migrate() of workflow-webhooks/postgres (with bullmqSchema: \'bullmq\' for queue mode\'s BullMQ tables)';

/** The grant each kind of object needs, as PostgreSQL names the kind in "permission denied for <kind> <name>". */
const GRANT_FOR: Readonly<Record<string, (name: string) => string>> = {
  schema: (name) => `GRANT USAGE ON SCHEMA ${name}`,
  table: (name) => `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE ${name}`,
  relation: (name) => `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE ${name}`,
  sequence: (name) => `GRANT USAGE ON SEQUENCE ${name}`,
  function: (name) => `GRANT EXECUTE ON FUNCTION ${name}`,
};

interface Raw {
  message: string;
  code: string | undefined;
}

/** The error itself, then its causes: a wrapper (REGISTRY_UNAVAILABLE, the queue's own) keeps the raw one as cause. */
function* chain(error: unknown): Generator<Raw> {
  const seen = new Set<unknown>();
  for (let at: unknown = error; at instanceof Error && !seen.has(at); at = at.cause) {
    seen.add(at);
    const code = (at as { code?: unknown }).code;
    yield { message: at.message, code: typeof code === 'string' ? code : undefined };
  }
}

function tlsHint({ code, message }: Raw): string | undefined {
  if (code !== undefined && UNTRUSTED.has(code)) return `PostgreSQL's TLS certificate is not trusted (${code}): ${TRUST_THE_CA}.`;
  if (code !== undefined && EXPIRED.has(code)) return `PostgreSQL's TLS certificate is out of its validity dates (${code}): renew the server's certificate (ssl_cert_file), or check this machine's clock.`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return 'PostgreSQL\'s TLS certificate does not name the host connected to: connect by a name or address the certificate lists (its subjectAltName), or give the server a certificate that lists the one in the URL.';
  }
  if (message === 'The server does not support SSL connections') {
    return 'PostgreSQL was asked for TLS (sslmode or ssl in the connection) and its server has ssl = off: turn ssl on in the server\'s postgresql.conf, or connect without TLS where the network is private.';
  }
  if (code === '28000' && /no encryption/.test(message)) {
    return 'PostgreSQL accepts this role only over TLS (a hostssl line of pg_hba.conf): add sslmode=verify-full&sslrootcert=/path/to/ca.pem to the URL, or ssl: { ca } to the pool config.';
  }
  return undefined;
}

/**
 * A connection the server refused for a setting of the connection (a wrong password, a database or role that does not
 * exist): what to change. Waiting does not mend these, unlike a server that is down.
 */
function loginHint({ code, message }: Raw): string | undefined {
  if (code === '28P01' || (code === '28000' && /^(password|.*authentication failed)/.test(message))) {
    return 'PostgreSQL refused the user or its password: check the user and password in the connection URL (postgres://user:password@host/database) or the pool\'s user and password options.';
  }
  if (code === '3D000') {
    return 'The database named in the connection does not exist on this server: create it (CREATE DATABASE, or createdb), or name one that exists in the URL\'s path or the pool\'s database option.';
  }
  if (code === '28000' && /^role .* does not exist/.test(message)) {
    return 'The user named in the connection is no role of this server: create it (CREATE ROLE … LOGIN PASSWORD …), or name one that exists.';
  }
  return undefined;
}

/** A connection refused for a setting of the connection (user, password, database), and what to change; else undefined. */
export function loginRefusal(error: unknown): string | undefined {
  for (const raw of chain(error)) {
    const hint = loginHint(raw);
    if (hint !== undefined) return hint;
  }
  return undefined;
}

/** `schema`, when the caller knows the object is one of its own, qualifies the object's name in the GRANT. */
function permissionHint({ code, message }: Raw, schema: string | undefined): string | undefined {
  if (code !== '42501') return undefined;
  if (/^permission denied (for database|to create)|^must be owner of/.test(message)) return `${MIGRATE_ELSEWHERE}.`;
  // Not anchored at the end: a message that passed a layer before carries its fix after the object's name.
  const denied = /^permission denied for (schema|table|relation|sequence|function) "?([^"\s]+)"?/.exec(message);
  if (denied === null) return `The application's role lacks a grant (${GRANTS_DOC}).`;
  const [, kind, name] = denied as unknown as [string, string, string];
  const qualified = schema === undefined || kind === 'schema' || name.includes('.') ? name : `${schema}.${name}`;
  const grant = (GRANT_FOR[kind] as (name: string) => string)(qualified);
  return `The application's role lacks a grant: as the schema's owner, run ${grant} TO <the application's role> (${GRANTS_DOC}).`;
}

/**
 * What to change for a failure that a setting fixes, or undefined for any other (an outage, a wrong statement): a
 * sentence that follows the raw message and names the fix.
 */
export function failureHint(error: unknown, schema?: string): string | undefined {
  for (const raw of chain(error)) {
    const hint = tlsHint(raw) ?? loginHint(raw) ?? permissionHint(raw, schema);
    if (hint !== undefined) return hint;
  }
  return undefined;
}

/**
 * Adds the fix to the error's own message (once, however many layers pass it on) and hands the same error back: its
 * class, code and cause stay, so whatever reads them (outage or not, committed or not) reads the same.
 */
export function explainFailure<T>(error: T, schema?: string): T {
  const hint = failureHint(error, schema);
  // An error that carries the fix as its own hint (a refused login, wrapped) says it there already.
  if (hint === undefined || !(error instanceof Error) || error.message.includes(hint) || (error as { hint?: unknown }).hint === hint) return error;
  error.message = error.message === '' ? hint : `${error.message} — ${hint}`;
  return error;
}

/**
 * A reporter that tells each distinct fix once, for failures that repeat on every call (a reply too large for its
 * notification, stored without a grant): one line in the host's log, not one per call. Failures with no fix to name
 * are left to the caller's usual handling.
 */
export function reportEachFixOnce(schema: string | undefined, report: (error: unknown, hint: string) => void): (error: unknown) => void {
  const told = new Set<string>();
  return (error) => {
    const hint = failureHint(error, schema);
    if (hint === undefined || told.has(hint)) return;
    told.add(hint);
    report(error, hint);
  };
}
