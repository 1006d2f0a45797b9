/**
 * What a web queue, a worker and a registry on PostgreSQL say when the server refuses their connection for a setting
 * of it (a wrong password, a database that does not exist), and when a host's pg.Pool lacks BullMQ's schema on its
 * search path: the error has the shape of a server that cannot be reached (its code, the server's words, the raw
 * error as cause) with what to change as its hint, and the log tells no outage that is not one.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { createWebhookQueue, createWebhookWorker } from 'workflow-webhooks/queue';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { POSTGRES, PostgresServer } from '../../support/postgres-server.js';
import { findService, markNotRun } from '../../support/services.js';

interface Logged {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

function recordingLogger(lines: Logged[]): { warn: (fields: Record<string, unknown>, message?: string) => void; error: (fields: Record<string, unknown>, message?: string) => void } {
  return {
    warn: (fields, message = '') => { lines.push({ level: 'warn', message, fields }); },
    error: (fields, message = '') => { lines.push({ level: 'error', message, fields }); },
  };
}

if (findService(POSTGRES) === undefined) {
  markNotRun('connections PostgreSQL refuses for a setting', POSTGRES);
} else {
  describe('connections PostgreSQL refuses for a setting of the connection', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    /** The URL with a user whose password is checked, and the wrong password. */
    let wrongPassword: string;
    let unknownDatabase: string;

    before(async function () {
      this.timeout(60_000);
      server = await PostgresServer.start() as PostgresServer;
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      try {
        await admin.query('CREATE ROLE checked LOGIN PASSWORD \'right-password\'');
        const hba = String((await admin.query('SHOW hba_file')).rows[0].hba_file);
        // The role's password is checked; every other connection stays trusted.
        writeFileSync(hba, `host all checked 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
        await admin.query('SELECT pg_reload_conf()');
      } finally {
        await admin.end();
      }
      wrongPassword = `postgres://checked:wrong-password@127.0.0.1:${server.port}/postgres`;
      unknownDatabase = `postgres://postgres@127.0.0.1:${server.port}/no_such_database`;
    });
    after(async () => { await server?.stop(); });

    for (const [name, url, hint] of [
      ['a wrong password', () => wrongPassword, 'check the user and password'],
      ['a database that does not exist', () => unknownDatabase, 'does not exist on this server: create it'],
    ] as const) {
      it(`refuses a worker's start for ${name} as QUEUE_UNAVAILABLE with what to change, at once and without retrying`, async () => {
        const lines: Logged[] = [];
        const worker = createWebhookWorker({ connection: url(), name: 'refused', executor: async (run) => ({ items: run.items }), logger: recordingLogger(lines) });
        try {
          const error = await worker.ready().then(() => undefined, (failure: unknown) => failure as { code?: string; hint?: string; message: string; cause?: unknown });
          expect(error?.code).to.equal('QUEUE_UNAVAILABLE');
          expect(error?.message).to.match(/^The queue worker could not connect to PostgreSQL: /);
          expect(error?.hint).to.include(hint);
          expect(error?.cause, 'the raw error is kept as cause').to.be.instanceOf(Error);
          expect(lines.map((line) => line.message).filter((message) => /unreachable/.test(message)), 'no outage is told').to.deep.equal([]);
        } finally {
          await worker.close({ timeoutMs: 500 });
        }
      });

      it(`refuses a registry's start for ${name} as REGISTRY_UNAVAILABLE, as a wrong port is, with what to change`, async () => {
        const registry = new PostgresWebhookRegistry({ connectionString: url(), logger: recordingLogger([]) });
        try {
          const error = await registry.ready({ timeoutMs: 10_000 }).then(() => undefined, (failure: unknown) => failure as { code?: string; hint?: string; message: string });
          expect(error?.code).to.equal('REGISTRY_UNAVAILABLE');
          expect(`${error?.message} ${error?.hint}`).to.include(hint);
        } finally {
          await registry.close();
        }
      });
    }

    for (const side of ['worker', 'web queue'] as const) {
      it(`refuses a host's pg.Pool without BullMQ's schema on its search path (${side}) with the fix, and logs no "could not connect" before it`, async () => {
        const lines: Logged[] = [];
        const pool = new pg.Pool({ connectionString: server.url, max: 4 });
        pool.on('error', () => undefined);
        const logger = recordingLogger(lines);
        const made = side === 'worker'
          ? createWebhookWorker({ connection: pool as never, name: 'no-path', executor: async (run) => ({ items: run.items }), logger })
          : createWebhookQueue({ connection: pool as never, name: 'no-path', logger });
        try {
          const error = await made.ready().then(() => undefined, (failure: unknown) => failure as Error);
          expect(error?.message).to.include('does not have BullMQ\'s schema "bullmq" on its search_path');
          expect(lines.map((line) => line.message).filter((message) => /could not connect|unreachable/.test(message))).to.deep.equal([]);
          expect(lines.map((line) => line.level)).to.deep.equal(['error']);
        } finally {
          await made.close({ timeoutMs: 500 } as never);
          await pool.end();
        }
      });
    }
  });
}
