/**
 * The console's History API over HTTP, in Express 5 with the real middleware keeping calls in a MemoryHistoryStore:
 * finding kept calls by each filter with a cursor (files by name, type and size only), opening one, replaying one
 * (once, as the console's user; again only when asked), a bulk replay with its progress on the event stream and its
 * stop; and what it refuses: a bad query, a POST without the CSRF token, a user `authorize` refuses, a middleware
 * that keeps no history. The routes only pass the history API on, so one store shows them; the stores' own
 * behaviour is the history contract suite's.
 */
import { expect } from 'chai';
import type { WebhookExecutor, WebhookRun } from '../../lib/index.js';
import type { BulkReplayListing, BulkReplayProgressDto, ConsoleOverview, HistoryEntryDto, HistoryListing, ReplayResultDto } from '../../lib/console/index.js';
import { createWebhookConsole } from '../../lib/console/index.js';
import { MemoryHistoryStore } from '../../lib/webhooks/history/memory-store.js';
import { CONSOLE_BASE, consoleExecutor, startConsoleApp, WEBHOOK_BASE, type ConsoleApp, type ConsoleAppOptions } from '../support/console-app.js';
import { consoleSession, type ConsoleSession } from '../support/console-session.js';

interface Harness {
  app: ConsoleApp;
  page: ConsoleSession;
  runs: WebhookRun[];
  /** Who the host says is signed in, as the console's userOf reads it per request. */
  user: { name: string | undefined };
}

async function start(options: ConsoleAppOptions = {}): Promise<Harness> {
  const runs: WebhookRun[] = [];
  const user: Harness['user'] = { name: undefined };
  const executor: WebhookExecutor = (run) => {
    runs.push(run);
    return consoleExecutor(run);
  };
  const app = await startConsoleApp({
    executor,
    middleware: { history: { store: new MemoryHistoryStore(), bodyBytes: 65_536, fileBytes: 1024 } },
    console: { userOf: () => user.name },
    ...options,
  });
  return { app, page: await consoleSession(app), runs, user };
}

async function call(app: ConsoleApp, path: string, body: unknown, requestId: string): Promise<void> {
  const answer = await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/${path}`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-request-id': requestId },
  });
  await answer.arrayBuffer();
}

async function errorOf(answer: Response): Promise<{ status: number; code: string; message: string; hint?: string }> {
  const body = await answer.json() as { code: string; message: string; hint?: string };
  return { status: answer.status, ...body };
}

/** A memory store that refuses to keep calls while `refusing`, as a store that went away would. */
class RefusingStore extends MemoryHistoryStore {
  refusing = false;

  override append(records: Parameters<MemoryHistoryStore['append']>[0]): Promise<void> {
    return this.refusing ? Promise.reject(new Error('the store is away')) : super.append(records);
  }
}

const url = (app: ConsoleApp, path: string): string => `${app.origin}${CONSOLE_BASE}${path}`;

describe('the console\'s History API', () => {
  let harness: Harness;
  afterEach(() => harness?.app.close());

  describe('finding and opening kept calls', () => {
    beforeEach(async () => {
      harness = await start();
      const { app } = harness;
      await call(app, 'orders', { order: { status: 'paid', total: 42 } }, 'paid-1');
      await call(app, 'orders', { order: { status: 'open', total: '42' } }, 'open-1');
      await call(app, 'fails', { order: { status: 'paid' } }, 'fail-1');
      const form = new FormData();
      form.append('note', 'scan');
      form.append('scan', new Blob([Buffer.from('PDF-BYTES')], { type: 'application/pdf' }), 'scan.pdf');
      await (await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/orders`, { method: 'POST', body: form, headers: { 'x-request-id': 'file-1' } })).arrayBuffer();
      await app.middleware.history!.flush();
    });

    it('finds calls by workflow, status class, request id and a body value, newest first', async () => {
      const { page } = harness;
      const all = await page.get<HistoryListing>('/api/history');
      expect(all.entries.map((entry) => entry.requestId)).to.deep.equal(['file-1', 'fail-1', 'open-1', 'paid-1']);
      const orders = await page.get<HistoryListing>('/api/history?workflowId=orders&method=post');
      expect(orders.entries.map((entry) => entry.requestId)).to.deep.equal(['file-1', 'open-1', 'paid-1']);
      const failed = await page.get<HistoryListing>('/api/history?statusClass=5');
      expect(failed.entries.map((entry) => [entry.requestId, entry.code])).to.deep.equal([['fail-1', 'WORKFLOW_FAILED']]);
      const byId = await page.get<HistoryListing>('/api/history?requestId=open-1');
      expect(byId.entries.map((entry) => entry.data.body)).to.deep.equal([{ order: { status: 'open', total: '42' } }]);
      const paid = await page.get<HistoryListing>('/api/history?pointer=/order/status&equals=paid');
      expect(paid.entries.map((entry) => entry.requestId)).to.deep.equal(['fail-1', 'paid-1']);
    });

    it('reads equals as the JSON scalar it spells, and as text otherwise', async () => {
      const { page } = harness;
      const number = await page.get<HistoryListing>('/api/history?pointer=/order/total&equals=42');
      expect(number.entries.map((entry) => entry.requestId)).to.deep.equal(['paid-1']);
      const text = await page.get<HistoryListing>(`/api/history?pointer=/order/total&equals=${encodeURIComponent('"42"')}`);
      expect(text.entries.map((entry) => entry.requestId)).to.deep.equal(['open-1']);
    });

    it('pages with a cursor: limit calls a page, next until the oldest', async () => {
      const { page } = harness;
      const first = await page.get<HistoryListing>('/api/history?limit=3');
      expect(first.entries.map((entry) => entry.requestId)).to.deep.equal(['file-1', 'fail-1', 'open-1']);
      expect(first.next).to.be.a('string');
      const second = await page.get<HistoryListing>(`/api/history?limit=3&cursor=${first.next!}`);
      expect(second.entries.map((entry) => entry.requestId)).to.deep.equal(['paid-1']);
      expect(second.next).to.equal(undefined);
    });

    it('lists a file by name, type and size only, and gives its kept bytes with the call opened alone', async () => {
      const { page } = harness;
      const listing = await page.get<HistoryListing>('/api/history?requestId=file-1');
      const [row] = listing.entries;
      expect(row?.data.files).to.deep.equal([{ property: 'scan', fileName: 'scan.pdf', mimeType: 'application/pdf', size: 9 }]);
      const opened = await page.get<HistoryEntryDto>(`/api/history/${row!.id}`);
      expect(opened.data.files[0]?.data).to.equal(Buffer.from('PDF-BYTES').toString('base64'));
      expect(opened).to.deep.include({ id: row!.id, workflowId: 'orders', method: 'POST', requestId: 'file-1', replays: 0 });
    });

    it('answers 404 HISTORY_NOT_FOUND for a call it does not keep', async () => {
      const answer = await fetch(url(harness.app, '/api/history/000000000-0123456789abcdef'));
      expect(await errorOf(answer)).to.deep.include({ status: 404, code: 'HISTORY_NOT_FOUND' });
    });

    it('refuses a bad query with 400 CONSOLE_BAD_REQUEST naming what is wrong', async () => {
      const cases: [string, string][] = [
        ['statusClass=9', 'statusClass'], ['statusClass=2xx', 'statusClass'], ['from=yesterday', 'from'], ['to=2026-13-45T99:00', 'to'],
        ['limit=0', 'limit'], ['limit=501', 'limit'], ['cursor=nope', 'cursor'], ['pointer=/order/status', 'equals'],
        ['equals=paid', 'pointer'], ['pointer=order&equals=1', 'pointer'], ['status=500', 'status'], ['code=A&code=B', 'code'],
      ];
      for (const [query, named] of cases) {
        const refused = await errorOf(await fetch(url(harness.app, `/api/history?${query}`)));
        expect(refused, query).to.deep.include({ status: 400, code: 'CONSOLE_BAD_REQUEST' });
        expect(refused.message, query).to.include(named);
      }
    });
  });

  describe('replaying', () => {
    beforeEach(async () => {
      harness = await start();
      for (const [index, status] of ['paid', 'paid', 'open'].entries()) await call(harness.app, 'orders', { order: { status } }, `order-${index}`);
      await harness.app.middleware.history!.flush();
    });

    it('answers a replay with its result though the history store will not keep it now: the replay ran, its entry waits for the next batch', async () => {
      await harness.app.close();
      const store = new RefusingStore();
      harness = await start({ middleware: { history: { store, bodyBytes: 65_536 }, logger: { error: () => undefined, warn: () => undefined } } });
      await call(harness.app, 'orders', { order: { status: 'paid' } }, 'order-x');
      await harness.app.middleware.history!.flush();
      const [original] = (await harness.page.get<HistoryListing>('/api/history?requestId=order-x')).entries;
      store.refusing = true;
      const replayed = await harness.page.post(`/api/history/${original!.id}/replay`, {});
      expect(replayed.status).to.equal(200);
      expect(await replayed.json()).to.deep.include({ of: original!.id, status: 200 });
      store.refusing = false;
      await harness.app.middleware.history!.flush();
      expect((await harness.page.get<HistoryListing>(`/api/history?replayOf=${original!.id}`)).entries).to.have.length(1);
    });

    it('replays a call once as the console\'s user, links the replay to it, and replays it again only when asked again', async () => {
      const { app, page, runs } = harness;
      const [original] = (await page.get<HistoryListing>('/api/history?requestId=order-0')).entries;
      runs.length = 0;
      const replayed = await page.post(`/api/history/${original!.id}/replay`, {});
      expect(replayed.status).to.equal(200);
      const result = await replayed.json() as ReplayResultDto;
      expect(result).to.deep.include({ of: original!.id, status: 200 });
      expect(runs.map((run) => run.replay)).to.deep.equal([{ of: original!.id, at: original!.at, by: 'console' }]);
      // The replay's own entry opens at once: the route writes it before answering, not with the next batch.
      expect(await page.get<HistoryEntryDto>(`/api/history/${result.entryId}`)).to.deep.include({ replayOf: original!.id, replayedBy: 'console' });

      const twice = await page.post(`/api/history/${original!.id}/replay`, {});
      expect(await errorOf(twice)).to.deep.include({ status: 409, code: 'HISTORY_REPLAYED_BEFORE' });
      expect(runs).to.have.length(1);

      harness.user.name = 'ada@example.com';
      const again = await page.post(`/api/history/${original!.id}/replay`, { again: true });
      expect(again.status).to.equal(200);
      expect(runs.map((run) => run.replay?.by)).to.deep.equal(['console', 'ada@example.com']);
      await app.middleware.history!.flush();
      const replays = await page.get<HistoryListing>(`/api/history?replayOf=${original!.id}`);
      expect(replays.entries.map((entry) => entry.replayedBy)).to.deep.equal(['ada@example.com', 'console']);
      expect(replays.entries.map((entry) => entry.id)).to.include(result.entryId);
      expect((await page.get<HistoryEntryDto>(`/api/history/${original!.id}`)).replays).to.equal(2);
    });

    it('refuses a replay body it does not take', async () => {
      const [original] = (await harness.page.get<HistoryListing>('/api/history?limit=1')).entries;
      for (const body of [{ again: 'yes' }, { by: 'mallory' }]) {
        const refused = await errorOf(await harness.page.post(`/api/history/${original!.id}/replay`, body));
        expect(refused, JSON.stringify(body)).to.deep.include({ status: 400, code: 'CONSOLE_BAD_REQUEST' });
      }
      expect(harness.runs.filter((run) => run.replay !== undefined)).to.deep.equal([]);
    });

    it('replays every call a filter matches, pushing its progress on the event stream to the end, and lists it', async () => {
      const { page, runs } = harness;
      const stream = await page.events();
      runs.length = 0;
      const started = await page.post('/api/history/replays', { filter: { workflowId: 'orders', body: { pointer: '/order/status', equals: 'paid' } }, perSecond: 1000 });
      expect(started.status).to.equal(202);
      const progress = await started.json() as BulkReplayProgressDto;
      expect(progress).to.deep.include({ state: 'running', by: 'console', perSecond: 1000 });
      const done = await stream.next<{ progress: BulkReplayProgressDto }>('replay', (event) => event.progress.id === progress.id && event.progress.state === 'done');
      stream.close();
      expect(done.progress).to.deep.include({ matched: 2, replayed: 2, failed: 0, refused: 0, skipped: 0 });
      const paid = (await page.get<HistoryListing>('/api/history?pointer=/order/status&equals=paid')).entries;
      expect(runs.map((run) => run.replay?.of).sort()).to.deep.equal(paid.map((entry) => entry.id).sort()).and.to.have.length(2);
      const listing = await page.get<BulkReplayListing>('/api/history/replays');
      expect(listing.replays.map((one) => [one.id, one.state])).to.deep.equal([[progress.id, 'done']]);
    });

    it('stops a bulk replay: no replay starts after it, and the stream says it stopped', async () => {
      const { page, runs } = harness;
      const stream = await page.events();
      runs.length = 0;
      const started = await page.post('/api/history/replays', { filter: {}, perSecond: 1 });
      const { id } = await started.json() as BulkReplayProgressDto;
      const stopped = await page.post(`/api/history/replays/${id}/stop`);
      expect(stopped.status).to.equal(200);
      const ended = await stream.next<{ progress: BulkReplayProgressDto }>('replay', (event) => event.progress.id === id && event.progress.state !== 'running');
      stream.close();
      expect(ended.progress.state).to.equal('stopped');
      expect(runs.length).to.equal(ended.progress.replayed + ended.progress.failed).and.to.be.below(3);
      const missing = await errorOf(await page.post('/api/history/replays/no-such-replay/stop'));
      expect(missing).to.deep.include({ status: 404, code: 'CONSOLE_NOT_FOUND' });
    });

    it('refuses a bulk replay whose filter or rate it does not take, naming it', async () => {
      const cases: [unknown, string][] = [
        [{ filter: { statusClass: 9 } }, 'statusClass'], [{ filter: { from: 'today' } }, 'from'], [{ filter: { status: 500 } }, 'status'],
        [{ filter: { body: { pointer: 'order', equals: 1 } } }, 'pointer'], [{ filter: { body: { pointer: '/a', equals: {} } } }, 'equals'],
        [{ filter: [] }, 'filter'], [{ filter: {}, perSecond: 0 }, 'perSecond'], [{ filter: {}, perSecond: 1001 }, 'perSecond'], [{ filter: {}, again: 1 }, 'again'],
      ];
      for (const [body, named] of cases) {
        const refused = await errorOf(await harness.page.post('/api/history/replays', body));
        expect(refused, JSON.stringify(body)).to.deep.include({ status: 400, code: 'CONSOLE_BAD_REQUEST' });
        expect(refused.message, JSON.stringify(body)).to.include(named);
      }
      expect((await harness.page.get<BulkReplayListing>('/api/history/replays')).replays).to.deep.equal([]);
    });
  });

  describe('what it refuses', () => {
    it('refuses every replay POST without the page\'s CSRF token, and runs nothing', async () => {
      harness = await start();
      await call(harness.app, 'orders', { order: { status: 'paid' } }, 'csrf-1');
      await harness.app.middleware.history!.flush();
      const [entry] = (await harness.page.get<HistoryListing>('/api/history')).entries;
      harness.runs.length = 0;
      for (const path of [`/api/history/${entry!.id}/replay`, '/api/history/replays', '/api/history/replays/any/stop']) {
        const refused = await fetch(url(harness.app, path), { method: 'POST', body: '{"filter":{}}', headers: { 'content-type': 'application/json' } });
        expect(await errorOf(refused), path).to.deep.include({ status: 403, code: 'CONSOLE_CSRF_INVALID' });
      }
      expect(harness.runs).to.deep.equal([]);
    });

    it('refuses every History route to a user authorize refuses', async () => {
      harness = await start({ console: { public: undefined, authorize: (req) => req.headers['x-admin'] === 'yes' } });
      const allowed = await fetch(url(harness.app, '/api/history'), { headers: { 'x-admin': 'yes' } });
      expect(allowed.status).to.equal(200);
      for (const [method, path] of [['GET', '/api/history'], ['GET', '/api/history/replays'], ['GET', '/api/history/000000000-0123456789abcdef'], ['POST', '/api/history/replays']]) {
        const refused = await fetch(url(harness.app, path!), { method });
        expect(await errorOf(refused), path).to.deep.include({ status: 403, code: 'CONSOLE_FORBIDDEN' });
      }
    });

    it('answers 404 CONSOLE_NOT_FOUND with how to keep calls when the middleware keeps no history', async () => {
      harness = await start({ middleware: {} });
      const overview = await harness.page.get<ConsoleOverview>('/api/overview');
      expect(overview.features.history).to.equal(false);
      const answers = [
        await fetch(url(harness.app, '/api/history')), await fetch(url(harness.app, '/api/history/replays')),
        await fetch(url(harness.app, '/api/history/000000000-0123456789abcdef')),
        await harness.page.post('/api/history/000000000-0123456789abcdef/replay'), await harness.page.post('/api/history/replays', { filter: {} }),
      ];
      for (const answer of answers) {
        const refused = await errorOf(answer);
        expect(refused, answer.url).to.deep.include({ status: 404, code: 'CONSOLE_NOT_FOUND' });
        expect(refused.hint, answer.url).to.include('history: { store }');
      }
    });

    it('takes userOf only as a function', async () => {
      harness = await start();
      const { registry, middleware } = harness.app;
      expect(() => createWebhookConsole({ registry, middleware, public: true, webhookUrl: '/x', userOf: 'ada' as never }))
        .to.throw(TypeError, 'userOf must be a function');
    });
  });
});
