/**
 * What the console holds on to, and that it lets go: it hears the middleware (its calls, its bulk replays' progress)
 * once for all its pages, lets go of a page's event stream once the page leaves, and hears nothing more once closed,
 * so a long-running server that opens pages, or creates and closes consoles, does not grow. The real middleware keeps
 * calls in a MemoryHistoryStore; the console sees it through a wrapper that only counts who listens.
 */
import { expect } from 'chai';
import express from 'express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddleware } from '../../lib/index.js';
import type { BulkReplayProgressDto } from '../../lib/console/index.js';
import { createWebhookConsole, type WebhookConsole } from '../../lib/console/index.js';
import { MemoryHistoryStore } from '../../lib/webhooks/history/memory-store.js';
import { CONSOLE_BASE, CONSOLE_WORKFLOWS, consoleExecutor, WEBHOOK_BASE, type ConsoleApp } from '../support/console-app.js';
import { consoleSession } from '../support/console-session.js';
import { eventually } from '../support/temp-dir.js';

/** Who listens to the middleware now: to its calls, and to its bulk replays' progress. */
interface Listening { calls: Set<unknown>; replays: Set<unknown> }

/** The middleware as the console is given it: the real one, counting the listeners it has until each unsubscribes. */
function countingListeners(middleware: WebhookMiddleware): { middleware: WebhookMiddleware; listening: Listening } {
  const listening: Listening = { calls: new Set(), replays: new Set() };
  const history = middleware.history!;
  const counted = (listeners: Set<unknown>, listener: unknown, unsubscribe: () => void): () => void => {
    listeners.add(listener);
    return () => { listeners.delete(listener); unsubscribe(); };
  };
  const given: WebhookMiddleware = Object.assign((req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => middleware(req, res, next), {
    close: middleware.close,
    settings: middleware.settings,
    subscribe: (listener: Parameters<WebhookMiddleware['subscribe']>[0]) => counted(listening.calls, listener, middleware.subscribe(listener)),
    history: { ...history, onProgress: (listener: Parameters<typeof history.onProgress>[0]) => counted(listening.replays, listener, history.onProgress(listener)) },
  });
  return { middleware: given, listening };
}

interface Harness {
  app: ConsoleApp;
  console: WebhookConsole;
  listening: Listening;
  /** The server's side of every event stream a page opened, held weakly: what the server still holds of them. */
  streams: WeakRef<ServerResponse>[];
}

async function start(): Promise<Harness> {
  const registry = new MemoryWebhookRegistry();
  await registry.activate(CONSOLE_WORKFLOWS.find((workflow) => workflow.workflowId === 'orders')!);
  const middleware = createWebhookMiddleware(registry, consoleExecutor, {
    history: { store: new MemoryHistoryStore(), bodyBytes: 65_536 }, logger: { error: () => undefined, warn: () => undefined },
  });
  const { middleware: given, listening } = countingListeners(middleware);
  const console = createWebhookConsole({ registry, middleware: given, webhookUrl: WEBHOOK_BASE, public: true });
  const streams: WeakRef<ServerResponse>[] = [];
  const app = express();
  app.use(WEBHOOK_BASE, middleware);
  app.use(CONSOLE_BASE, (req, res, next) => {
    if (req.path === '/api/events') streams.push(new WeakRef(res));
    next();
  }, console);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async (): Promise<void> => {
    await console.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await middleware.close({ timeoutMs: 100 });
  };
  for (const requestId of ['order-1', 'order-2']) {
    const answer = await fetch(`${origin}${WEBHOOK_BASE}/webhook/orders`, {
      method: 'POST', body: '{"order":1}', headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    });
    await answer.arrayBuffer();
  }
  await middleware.history!.flush();
  return { app: { origin, registry, middleware, console, close }, console, listening, streams };
}

async function collectGarbage(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('mocha must run with --expose-gc (package.json "node-option")');
  for (let round = 0; round < 3; round += 1) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('what the console holds on to, and lets go', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.app.close();
    harness = undefined;
  });

  it('hears the bulk replays once for all its pages, and no longer hears the middleware once closed', async () => {
    harness = await start();
    const { listening } = harness;
    expect([listening.calls.size, listening.replays.size]).to.deep.equal([1, 1]);
    const page = await consoleSession(harness.app);
    const pages = await Promise.all([1, 2, 3].map(() => page.events()));
    const started = await page.post('/api/history/replays', { filter: {}, perSecond: 1000 });
    const { id } = await started.json() as BulkReplayProgressDto;
    for (const stream of pages) {
      const done = await stream.next<{ progress: BulkReplayProgressDto }>('replay', (event) => event.progress.id === id && event.progress.state === 'done');
      expect(done.progress).to.deep.include({ matched: 2, replayed: 2 });
      stream.close();
    }
    expect([listening.calls.size, listening.replays.size], 'after three pages came and went').to.deep.equal([1, 1]);

    await harness.console.close();
    expect([listening.calls.size, listening.replays.size], 'after close').to.deep.equal([0, 0]);
  });

  it('lets go of a page\'s event stream once the page leaves, so pages opened over a server\'s life do not add up', async function () {
    this.timeout(10_000);
    harness = await start();
    const { streams } = harness;
    const page = await consoleSession(harness.app);
    for (let opened = 0; opened < 5; opened += 1) {
      const stream = await page.events();
      stream.close();
    }
    expect(streams).to.have.length(5);
    // Each stream's server side closes once the page's connection is gone.
    await eventually(() => streams.every((stream) => stream.deref()?.closed !== false), 3000);
    await collectGarbage();
    expect(streams.filter((stream) => stream.deref() !== undefined), 'streams the console still holds').to.have.length(0);
  });
});
