/**
 * The document is true, not just well-formed: for a registry holding every kind of node, the served document passes
 * @readme/openapi-parser, and a call built from the document alone, for each operation and each media type it lists,
 * reaches the right workflow and is answered as the document says. With the memory registry and with the Redis
 * registry (the document served by another instance than the one that activated the workflows).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { validate, compileErrors } from '@readme/openapi-parser';
import { expect } from 'chai';
import express from 'express';
import { createClient } from 'redis';
import {
  createWebhookMiddleware, describeWebhooks, ERROR_CODES, MemoryWebhookRegistry,
  type OpenApiDocument, type WebhookRegistry, type WebhookRun,
} from 'workflow-webhooks';
import { RedisWebhookRegistry } from 'workflow-webhooks/redis';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';
import { eventually } from '../../support/registry-contract/instances.js';
import { bodyTypesOf, callAsDescribed, expectAsDescribed, operationsOf, urlOf } from './fixtures/call-as-described.js';
import { credentialOf, EVERY_NODE, everyNodeExecutor } from './fixtures/every-node.js';
import { closeAll } from '../../support/close-all.js';

interface Registries {
  /** Where the workflows are activated. */
  owner: WebhookRegistry;
  /** What the middleware serves from (another instance, for a shared store). */
  served: WebhookRegistry;
  close(): Promise<void>;
}

const OPERATIONS = 22;

function describeRoundTrip(name: string, open: () => Promise<Registries>): void {
  describe(`the OpenAPI document of ${name}`, function () {
    this.timeout(20_000);
    let registries: Registries;
    let server: Server;
    let document: OpenApiDocument;
    const runs: WebhookRun[] = [];

    before(async () => {
      registries = await open();
      for (const workflow of EVERY_NODE) await registries.owner.activate(workflow);
      await eventually(async () => (await registries.served.list()).length === OPERATIONS, 3000);
      const app = express();
      app.use('/api/automation', createWebhookMiddleware(registries.served, everyNodeExecutor(runs), {
        credentials: credentialOf, openApi: { path: '/openapi.json', title: 'Every node', version: '3.0.0' },
        onWorkflowError: () => undefined,
      }));
      server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/api/automation/openapi.json`);
      expect(response.status).to.equal(200);
      document = await response.json() as OpenApiDocument;
    });

    after(() => closeAll(() => (server === undefined ? undefined : new Promise((resolve) => server.close(resolve))), () => registries?.close()));

    it('validates with @readme/openapi-parser as OpenAPI 3.1', async () => {
      const result = await validate(structuredClone(document) as never);
      expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true);
      expect(result.warnings).to.deep.equal([]);
      expect(document.openapi).to.equal('3.1.0');
      expect(document.info).to.deep.include({ title: 'Every node', version: '3.0.0' });
    });

    it('has one operation per (node, method), each with its own valid operationId', () => {
      const operations = operationsOf(document);
      expect(operations).to.have.length(OPERATIONS);
      const ids = operations.map(({ operation }) => operation.operationId as string);
      expect(new Set(ids).size).to.equal(ids.length);
      for (const id of ids) expect(id).to.match(/^[A-Za-z_][A-Za-z0-9_]*$/);
    });

    it('names the error codes of the catalogue, as it is now', () => {
      const schema = document.components.schemas.WebhookError as { properties: { code: { enum: string[] } } };
      expect(schema.properties.code.enum).to.deep.equal(Object.keys(ERROR_CODES));
    });

    it('describes what describeWebhooks() describes from the same registry', async () => {
      const direct = await describeWebhooks(registries.served, {
        baseUrl: document.servers[0]?.url as string, title: 'Every node', version: '3.0.0', credentials: credentialOf,
      });
      expect(direct).to.deep.equal(document);
    });

    it('accepts a call built from the document for each operation and each media type it lists, and answers as described', async () => {
      let calls = 0;
      for (const described of operationsOf(document)) {
        for (const bodyType of bodyTypesOf(described.operation)) {
          runs.length = 0;
          const answer = await callAsDescribed(document, described, { bodyType });
          const response = expectAsDescribed(document, described, answer);
          expect(answer.status, `${described.method} ${described.path} with ${String(bodyType)}: ${String(response.description)}`).to.be.below(400);
          // onReceived answers before its workflow has run: the run is recorded a moment later.
          await eventually(async () => runs.length === 1);
          const [run] = runs;
          expect([run?.workflowId, run?.nodeName, run?.method]).to.deep.equal([described.operation['x-workflow-id'], described.operation['x-node-name'], described.method]);
          if (bodyType === 'application/json' && !described.path.includes('uploads/whole')) expect(run?.items[0]?.json.body).to.deep.equal({ hello: 'world' });
          calls += 1;
        }
      }
      expect(calls).to.be.greaterThan(60);
    });

    it('refuses a call without the described credentials with an error the document lists, never running the workflow', async () => {
      runs.length = 0;
      const secured = operationsOf(document).filter(({ operation }) => operation.security !== undefined);
      expect(secured).to.have.length(4);
      for (const described of secured) {
        const answer = await callAsDescribed(document, described, { bodyType: 'application/json', anonymous: true });
        expect(answer.status).to.be.oneOf([401, 403]);
        expectAsDescribed(document, described, answer);
      }
      expect(runs).to.deep.equal([]);
    });

    it('lists the 404 a deactivated workflow\'s address answers', async () => {
      const described = operationsOf(document).find(({ method }) => method === 'GET');
      const answer = await fetch(urlOf(document, { ...described!, path: '/webhook/no/such/address/here' }));
      expect(answer.status).to.equal(404);
      expectAsDescribed(document, described!, { status: answer.status, headers: answer.headers, body: Buffer.from(await answer.arrayBuffer()) });
    });
  });
}

describeRoundTrip('a MemoryWebhookRegistry holding every kind of node', async () => {
  const registry = new MemoryWebhookRegistry();
  return { owner: registry, served: registry, close: async () => undefined };
});

if (findService(REDIS) === undefined) {
  markNotRun('the OpenAPI document of a RedisWebhookRegistry', REDIS);
} else {
  describeRoundTrip('a RedisWebhookRegistry holding every kind of node, served by another instance', async () => {
    const redis = await RedisServer.start() as RedisServer;
    const prefix = `describe-${process.pid}:`;
    const clients = await Promise.all([0, 1].map(async () => {
      const client = createClient({ url: redis.url });
      client.on('error', () => undefined);
      return client.connect();
    }));
    const [owner, served] = clients.map((client) => new RedisWebhookRegistry({ client, prefix, onEvent: () => undefined })) as [RedisWebhookRegistry, RedisWebhookRegistry];
    await Promise.all([owner.ready(), served.ready()]);
    return {
      owner,
      served,
      async close() {
        await Promise.all([owner.close(), served.close()]);
        for (const client of clients) client.destroy();
        await redis.stop();
      },
    };
  });
}
