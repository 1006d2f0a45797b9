/**
 * PostgreSQL over TLS, as docs/postgres.md ("TLS") says to connect: a throwaway cluster that takes TLS connections
 * only, with a server certificate of a private CA made by openssl, and the registry, the web queue and the worker each
 * carrying a call over `sslmode=verify-full&sslrootcert=…`, over `sslmode=require&uselibpqcompat=true`, and over a
 * pool (config) with `ssl: { ca }`. A certificate the client does not trust is refused, saying what to check.
 */
import { expect } from 'chai';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { PostgresWebhookRegistry, type PostgresPoolLike } from 'workflow-webhooks/postgres';
import { createWebhookQueue, createWebhookWorker, type QueueConnection } from 'workflow-webhooks/queue';
import { POSTGRES, PostgresServer } from '../support/postgres-server.js';
import { lastNodeThroughQueue } from '../support/postgres/queue-app.js';
import { findService, markNotRun } from '../support/services.js';
import { makeTlsFiles, OPENSSL, type TlsFiles } from '../support/tls-files.js';

const SILENT = { error: (): void => undefined, warn: (): void => undefined };
/** What a host must be told for a certificate it does not trust: that it is TLS, and which setting gives the CA. */
const TRUST_HINT = ['TLS certificate is not trusted', 'sslrootcert', 'ssl: { ca }'];

/**
 * The server's certificate and key where the server's user (nobody, under root) may read them, the key 0600 as
 * PostgreSQL demands, and a pg_hba.conf that takes TCP connections over TLS only.
 */
function serverFiles(tls: TlsFiles): { settings: Record<string, string>; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'ww-pg-tls-'));
  const cert = join(dir, 'server.crt');
  const key = join(dir, 'server.key');
  const hba = join(dir, 'pg_hba.conf');
  copyFileSync(tls.cert, cert);
  copyFileSync(tls.key, key);
  writeFileSync(hba, 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n');
  chmodSync(key, 0o600);
  if (process.getuid?.() === 0) for (const path of [dir, cert, key, hba]) chownSync(path, 65534, 65534);
  return {
    settings: { ssl: 'on', ssl_cert_file: cert, ssl_key_file: key, hba_file: hba },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function keptLogger(): { lines: string[]; logger: { warn(fields: unknown, text?: string): void; error(fields: unknown, text?: string): void } } {
  const lines: string[] = [];
  const keep = (fields: unknown, text?: string): void => {
    const err = (fields as { err?: { message?: unknown } } | undefined)?.err;
    lines.push(`${String(text)} ${typeof err?.message === 'string' ? err.message : ''}`);
  };
  return { lines, logger: { warn: keep, error: keep } };
}

async function refusal(work: Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => { timer = setTimeout(resolve, 20_000, 'late'); });
  try {
    if (await Promise.race([work.then(() => 'ready' as const), late]) === 'late') throw new Error('neither ready nor refused within 20 s');
  } catch (error) {
    return (error as Error).message;
  } finally {
    clearTimeout(timer);
  }
  throw new Error('it was not refused');
}

async function until(probe: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`not true within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

if (findService(POSTGRES) === undefined) {
  markNotRun('PostgreSQL over TLS', POSTGRES);
} else if (findService(OPENSSL) === undefined) {
  markNotRun('PostgreSQL over TLS', OPENSSL);
} else {
  describe('PostgreSQL over TLS with a private CA: registry, web queue and worker (docs/postgres.md, "TLS")', function () {
    this.timeout(120_000);
    let server: PostgresServer;
    let tls: TlsFiles;
    let otherCa: TlsFiles;
    let files: { remove(): void } | undefined;
    let base: string;
    const closers: Array<() => Promise<unknown>> = [];

    before(async function () {
      this.timeout(180_000);
      tls = makeTlsFiles();
      otherCa = makeTlsFiles();
      const made = serverFiles(tls);
      files = made;
      server = await PostgresServer.start({ settings: made.settings }) as PostgresServer;
      base = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
    });
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    });
    after(async () => {
      await server?.stop();
      files?.remove();
      tls?.remove();
      otherCa?.remove();
    });

    /** The config form of a pool: the host's own values and `ssl` as node-postgres takes it. */
    const poolConfig = (ca: string): { host: string; port: number; user: string; database: string; ssl: { ca: string } } => ({
      host: '127.0.0.1', port: server.port, user: 'postgres', database: 'postgres', ssl: { ca },
    });

    /** Registry, web queue and worker on the given connections; one lastNode call through them all over HTTP. */
    async function callThrough(registryConnection: { connectionString: string } | { pool: PostgresPoolLike }, queueConnection: QueueConnection): Promise<unknown> {
      const name = `tls-${Math.random().toString(36).slice(2, 8)}`;
      const schema = `tls_${name.slice(4)}`;
      const registry = new PostgresWebhookRegistry({ ...registryConnection, schema, logger: SILENT });
      closers.push(() => registry.close());
      await registry.ready();
      const app = await lastNodeThroughQueue({
        registry, name, closers,
        queue: { connection: queueConnection, name, schema, logger: SILENT, enqueueTimeoutMs: 10_000 },
        worker: { connection: queueConnection, name, schema, logger: SILENT },
        executor: (run) => ({ items: [{ json: { encrypted: true, body: run.items[0]?.json.body } }] }),
      });
      const res = await request(app).post(`/hooks/webhook/${name}`).send({ order: 7 }).expect(200);
      return res.body;
    }

    it('takes TCP connections over TLS only, so every case below ran encrypted, and says so to a client without TLS', async () => {
      const registry = new PostgresWebhookRegistry({ connectionString: base, logger: SILENT });
      closers.push(() => registry.close());
      const said = await refusal(registry.ready());
      expect(said).to.include('no encryption').and.to.include('only over TLS').and.to.include('sslmode=verify-full');
    });

    it('works with sslmode=verify-full&sslrootcert=<the CA\'s file> in the URL', async () => {
      const url = `${base}?sslmode=verify-full&sslrootcert=${tls.ca}`;
      expect(await callThrough({ connectionString: url }, url)).to.deep.equal({ encrypted: true, body: { order: 7 } });
    });

    it('works with sslmode=require&uselibpqcompat=true (libpq\'s require: encrypted, the certificate not checked)', async () => {
      const url = `${base}?sslmode=require&uselibpqcompat=true`;
      expect(await callThrough({ connectionString: url }, url)).to.deep.equal({ encrypted: true, body: { order: 7 } });
    });

    it('works with a pg.Pool and a pool config given ssl: { ca }', async () => {
      const pool = new pg.Pool({ ...poolConfig(tls.caPem), max: 4 });
      pool.on('error', () => undefined);
      closers.push(() => pool.end());
      expect(await callThrough({ pool: pool as unknown as PostgresPoolLike }, poolConfig(tls.caPem) as QueueConnection)).to.deep.equal({ encrypted: true, body: { order: 7 } });
    });

    it('refuses sslmode=require alone with a private CA (pg 8 checks as verify-full does), saying to give the CA', async () => {
      const registry = new PostgresWebhookRegistry({ connectionString: `${base}?sslmode=require`, logger: SILENT });
      closers.push(() => registry.close());
      const said = await refusal(registry.ready());
      for (const part of [...TRUST_HINT, 'uselibpqcompat=true']) expect(said).to.include(part);
    });

    it('refuses a server whose certificate another CA signed, and the registry, web queue and worker say it is TLS and what to check', async () => {
      const url = `${base}?sslmode=verify-full&sslrootcert=${otherCa.ca}`;
      const registry = new PostgresWebhookRegistry({ connectionString: url, logger: SILENT });
      closers.push(() => registry.close());
      const queue = createWebhookQueue({ connection: url, name: 'wrong-ca', logger: SILENT });
      closers.push(() => queue.close());
      const configured = createWebhookQueue({ connection: poolConfig(otherCa.caPem) as QueueConnection, name: 'wrong-ca', logger: SILENT });
      closers.push(() => configured.close());
      const work = keptLogger();
      const worker = createWebhookWorker({ connection: url, name: 'wrong-ca', executor: () => ({ items: [] }), logger: work.logger });
      closers.push(() => worker.close({ timeoutMs: 1000 }));
      for (const said of [await refusal(registry.ready()), await refusal(queue.ready()), await refusal(configured.ready())]) {
        for (const part of TRUST_HINT) expect(said).to.include(part);
      }
      await until(() => work.lines.some((line) => TRUST_HINT.every((part) => line.includes(part))));
    });
  });
}
