/**
 * The rate limits guide's example (docs/rate-limits.md), exactly as printed: it compiles under strict, and run in
 * Express it limits each address as its text says.
 */
import { expect } from 'chai';
import express from 'express';
import ts from 'typescript';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { compileErrors, docBlock } from '../../support/readme/blocks.js';
import { listen, sendTo, type RawResponse } from '../../support/raw-http.js';

const block = docBlock('docs/rate-limits.md', '# Rate limits');
const body = block.split('\n').filter((line) => !line.startsWith('import ')).join('\n');

type Builds = (express: unknown, createWebhookMiddleware: unknown, MemoryWebhookRegistry: unknown) => Promise<express.Express>;
const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => Builds;
const buildAsPrinted = new AsyncFunction('express', 'createWebhookMiddleware', 'MemoryWebhookRegistry',
  `${ts.transpileModule(body, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText}\nreturn app;`);

describe('the rate limits guide\'s example', function () {
  this.timeout(30_000);

  it('compiles as printed under strict', () => {
    expect(compileErrors(block)).to.deep.equal([]);
  });

  it('limits each address as the text says: 10 a minute per caller on signup, none on internal, the default per API key elsewhere', async () => {
    const server = await listen(await buildAsPrinted(express, createWebhookMiddleware, MemoryWebhookRegistry));
    try {
      const post = (path: string, headers: Record<string, string> = {}): Promise<RawResponse> => sendTo(server.port, { path: `/api/automation/webhook/${path}`, headers });
      const signup = [];
      for (let call = 0; call < 11; call += 1) signup.push(await post('signup'));
      expect(signup.map((res) => res.status)).to.deep.equal([...Array(10).fill(200), 429]);
      expect(signup[10]?.headers['ratelimit-policy']).to.equal('"ip-60s";q=10;w=60, "hourly";q=100;w=3600');
      expect(signup[10]?.headers.ratelimit).to.equal('"ip-60s";r=0;t=60, "hourly";r=90;t=3600');
      const internal = await post('internal');
      expect([internal.status, internal.headers['ratelimit-policy']]).to.deep.equal([200, undefined]);
      const orders = await post('orders', { 'x-api-key': 'key-1' });
      expect([orders.status, orders.headers.ratelimit]).to.deep.equal([200, '"header-60s";r=599;t=60']);
    } finally {
      await server.close();
    }
  });
});
