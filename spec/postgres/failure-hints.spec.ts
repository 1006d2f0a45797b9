/**
 * The fixes named for node-postgres' raw failures, one by one, with errors built as node-postgres and Node's TLS
 * build them (a DatabaseError with its SQLSTATE; an Error with OpenSSL's code). The real servers that raise them are
 * in tls.spec.ts and least-privilege.spec.ts.
 */
import { expect } from 'chai';
import pg from 'pg';
import { explainFailure, failureHint, reportEachFixOnce } from '../../lib/postgres/failure-hints.js';
import { WebhookError } from '../../lib/core/errors.js';

/** A server's refusal as node-postgres hands it over. */
function refused(code: string, message: string): Error {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.code = code;
  error.severity = 'ERROR';
  return error;
}

/** A failure of Node's TLS check, as the socket emits it. */
function tlsFailure(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('PostgreSQL failure hints: what to change, named', () => {
  for (const [code, message] of [
    ['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'],
  ]) {
    it(`says a certificate refused as ${code} is TLS, and names sslrootcert with verify-full and ssl: { ca }`, () => {
      const hint = failureHint(tlsFailure(code as string, message as string));
      expect(hint).to.include('TLS certificate is not trusted').and.to.include(code);
      expect(hint).to.include('sslmode=verify-full&sslrootcert=').and.to.include('ssl: { ca }').and.to.include('uselibpqcompat=true');
    });
  }

  it('says a certificate for another host, or out of its dates, is that, and what to change', () => {
    expect(failureHint(tlsFailure('ERR_TLS_CERT_ALTNAME_INVALID', 'Hostname/IP does not match certificate\'s altnames'))).to.include('does not name the host');
    expect(failureHint(tlsFailure('CERT_HAS_EXPIRED', 'certificate has expired'))).to.include('validity dates').and.to.include('ssl_cert_file');
  });

  it('says TLS was asked of a server with ssl off, and a server that takes the role over TLS only', () => {
    expect(failureHint(new Error('The server does not support SSL connections'))).to.include('ssl = off');
    const hba = refused('28000', 'no pg_hba.conf entry for host "127.0.0.1", user "app", database "app", no encryption');
    expect(failureHint(hba)).to.include('only over TLS').and.to.include('sslmode=verify-full');
  });

  it('names the GRANT a missing privilege needs, qualified by the schema the caller knows the object is in', () => {
    expect(failureHint(refused('42501', 'permission denied for sequence queue_replies_reply_id_seq'), 'workflow_webhooks'))
      .to.include('GRANT USAGE ON SEQUENCE workflow_webhooks.queue_replies_reply_id_seq TO <the application\'s role>');
    expect(failureHint(refused('42501', 'permission denied for table routes'), 'hooks'))
      .to.include('GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE hooks.routes TO');
    expect(failureHint(refused('42501', 'permission denied for schema bullmq'), 'hooks')).to.include('GRANT USAGE ON SCHEMA bullmq TO');
    expect(failureHint(refused('42501', 'permission denied for function queue_admit'))).to.include('GRANT EXECUTE ON FUNCTION queue_admit TO');
    expect(failureHint(refused('42501', 'permission denied to set parameter "x"'))).to.include('docs/postgres.md, "Least privilege"');
  });

  it('says a role that may not create must start with migrate: false and leave the migrations to migrate() as a role that may', () => {
    for (const message of ['permission denied for database app', 'must be owner of table migration']) {
      const hint = failureHint(refused('42501', message));
      expect(hint, message).to.include('migrate: false').and.to.include('migrate() of workflow-webhooks/postgres').and.to.include('bullmqSchema');
    }
  });

  it('says a refused login is the user and password, the database or the role named in the connection, and what to change', () => {
    expect(failureHint(refused('28P01', 'password authentication failed for user "app"'))).to.include('check the user and password');
    expect(failureHint(refused('3D000', 'database "app" does not exist'))).to.include('does not exist on this server: create it');
    expect(failureHint(refused('28000', 'role "app" does not exist'))).to.include('no role of this server: create it');
  });

  it('names nothing for an outage or a wrong statement', () => {
    expect(failureHint(refused('57P01', 'terminating connection due to administrator command'))).to.equal(undefined);
    expect(failureHint(refused('42P01', 'relation "x" does not exist'))).to.equal(undefined);
    expect(failureHint(tlsFailure('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).to.equal(undefined);
    expect(failureHint(new Error('Connection terminated unexpectedly'))).to.equal(undefined);
    expect(failureHint('not an error')).to.equal(undefined);
  });

  it('adds the fix to the error\'s message once, however many layers pass it on, keeping its class, code and identity', () => {
    const raw = refused('42501', 'permission denied for sequence calls_seq_seq');
    expect(explainFailure(raw)).to.equal(raw);
    explainFailure(raw);
    const wrapped = new WebhookError('REGISTRY_UNAVAILABLE', raw.message, { cause: raw });
    explainFailure(wrapped);
    expect(raw).to.be.instanceOf(pg.DatabaseError);
    expect((raw as { code?: string }).code).to.equal('42501');
    expect(raw.message.startsWith('permission denied for sequence calls_seq_seq — ')).to.equal(true);
    expect(raw.message.split('GRANT USAGE ON SEQUENCE')).to.have.length(2);
    expect(wrapped.message.split('GRANT USAGE ON SEQUENCE')).to.have.length(2);
    // Found through a wrapper's cause too.
    expect(failureHint(new Error('the queue failed', { cause: tlsFailure('SELF_SIGNED_CERT_IN_CHAIN', 'x') }))).to.include('TLS');
  });

  it('tells each distinct fix once, for failures that repeat on every call', () => {
    const told: string[] = [];
    const report = reportEachFixOnce('workflow_webhooks', (_error, hint) => { told.push(hint); });
    for (let call = 0; call < 5; call += 1) report(refused('42501', 'permission denied for sequence queue_replies_reply_id_seq'));
    report(refused('42501', 'permission denied for table queue_replies'));
    report(new Error('Connection terminated unexpectedly'));
    expect(told).to.have.length(2);
    expect(told[0]).to.include('GRANT USAGE ON SEQUENCE workflow_webhooks.queue_replies_reply_id_seq');
    expect(told[1]).to.include('ON TABLE workflow_webhooks.queue_replies');
  });
});
