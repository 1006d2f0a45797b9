/**
 * Call history keeps no secret: over HTTP in Express 5, calls carrying Basic credentials, a bearer token, a header
 * checked by header auth, a JWT, two senders' signatures, a `:token` path parameter and `?access_token=` /
 * `?api_key=` query parameters (and a cookie and an API key header) are kept with their bodies and answers, and on
 * every store (memory, Redis, PostgreSQL) nothing the store holds, read beside it, has any of those secrets in any
 * written form: where they were, the kept call shows `[redacted]`. With `history.encryption` (or, in queue mode, the
 * queue's own keys) a reader of the store does not see a call's body or headers either, the history API opens them,
 * and a call's sealed data moved onto another call does not open.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { WebhookError } from '../../../lib/core/errors.js';
import type { HistoryEntry, HistoryStore, WebhookHistory } from '../../../lib/core/history.js';
import { createWebhookQueue, createWebhookWorker, type WebhookQueue, type WebhookWorker } from '../../../lib/queue/index.js';
import { MemoryHistoryStore } from '../../../lib/webhooks/history/memory-store.js';
import { closeAll } from '../../support/close-all.js';
import { findAll, until } from '../../support/history-contract/fixture.js';
import { RAW_STORES } from '../../support/history/raw-stores.js';
import {
  BODY, BODY_MARKER, echoExecutor, leaked, sendSecretCalls, startHistoryApp, TRACE_MARKER, type HistoryApp, type SentCall, type SentCalls,
} from '../../support/history/secret-calls.js';
import { REDIS, RedisServer } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';

const CAPS = { bodyBytes: 65_536, answerBytes: 65_536 };
const encryption = (): { currentKeyId: string; keys: Record<string, Buffer> } => ({ currentKeyId: 'k1', keys: { k1: randomBytes(32) } });

/** Every call history keeps of `sent`, once the writer has handed them all to the store. */
async function keptCalls(history: WebhookHistory, sent: SentCalls): Promise<HistoryEntry[]> {
  const expected = sent.calls.filter((call) => call.kept).length;
  let entries: HistoryEntry[] = [];
  // A call is kept once its connection is done, which may be a moment after its caller read the answer.
  await until(async () => {
    await history.flush();
    entries = (await history.find({}, { limit: 50 })).entries;
    return entries.length >= expected;
  }, 10_000, `${expected} calls kept`);
  expect(entries).to.have.length(expected);
  return entries;
}

function entryOf(entries: readonly HistoryEntry[], workflowId: string, status = 200): HistoryEntry {
  return entries.find((entry) => entry.workflowId === workflowId && entry.status === status) ?? expect.fail(`no kept call of ${workflowId} answered ${status}`);
}

/** The kept answer's items: the trigger item echoed, then the item that repeats the secrets in strings. */
function answerOf(entry: HistoryEntry): Array<{ json: Record<string, unknown> }> {
  expect(entry.data.answerKept).to.equal('whole');
  return entry.data.answer as Array<{ json: Record<string, unknown> }>;
}

const SHOWN_QUERY = { ref: 'plain', access_token: '[redacted]', api_key: '[redacted]' };

for (const kind of RAW_STORES) {
  if (kind.service !== undefined && findService(kind.service) === undefined) {
    markNotRun(`call history on ${kind.name} keeps no secret`, kind.service);
    continue;
  }
  describe(`call history on ${kind.name} keeps no secret of a call`, function () {
    this.timeout(60_000);
    const stores = kind.setup();

    describe('in clear', () => {
      let store: HistoryStore;
      let app: HistoryApp;
      let sent: SentCalls;
      let entries: HistoryEntry[];
      let raw: string;
      before(async () => {
        store = await stores.open();
        app = await startHistoryApp({ store, ...CAPS });
        sent = await sendSecretCalls(app.origin);
        entries = await keptCalls(app.middleware.history as WebhookHistory, sent);
        raw = await stores.rawText(store);
      });
      after(() => app?.close());

      it('keeps every call its guard let through, with its body and answer whole, and not the call its guard refused', () => {
        const kept = sent.calls.filter((call) => call.kept).map((call: SentCall) => `${call.workflowId} ${call.status}`);
        expect(entries.map((entry) => `${entry.workflowId} ${entry.status ?? ''}`)).to.have.members(kept);
        expect(entryOf(entries, 'basic').data.body).to.deep.equal(JSON.parse(BODY));
        expect(entryOf(entries, 'basic', 400).code).to.equal('BODY_INVALID_JSON');
        // The raw reading is a reading of these calls: what is not secret is there in clear.
        expect(raw).to.include(BODY_MARKER).and.to.include(TRACE_MARKER);
        for (const entry of entries) expect(raw).to.include(entry.id);
      });

      it('holds none of the secrets in any written form (as sent, URL-encoded, base64) anywhere in the store', () => {
        expect(leaked(raw, sent.secrets)).to.deep.equal([]);
        expect(leaked(JSON.stringify(entries), sent.secrets)).to.deep.equal([]);
      });

      it('shows [redacted] for each credential header, the checked header of an innocent name and each signature, the rest as sent', () => {
        for (const entry of entries) {
          expect(entry.data.headers, entry.workflowId).to.include({ cookie: '[redacted]', 'x-api-key': '[redacted]', 'x-trace': TRACE_MARKER });
          expect(entry.data.query, entry.workflowId).to.deep.equal(SHOWN_QUERY);
        }
        for (const workflowId of ['basic', 'bearer', 'jwt']) expect(entryOf(entries, workflowId).data.headers.authorization).to.equal('[redacted]');
        expect(entryOf(entries, 'basic', 400).data.headers.authorization).to.equal('[redacted]');
        expect(entryOf(entries, 'ident').data.headers['x-partner-ident']).to.equal('[redacted]');
        expect(entryOf(entries, 'custom-signed').data.headers).to.include({ 'x-acme-signature': '[redacted]' }).and.to.have.property('x-acme-time').that.matches(/^\d+$/);
        expect(entryOf(entries, 'stripe-signed').data.headers['stripe-signature']).to.equal('[redacted]');
      });

      it('shows the :token path parameter as [redacted] in the kept path and parameters', () => {
        const reset = entryOf(entries, 'reset');
        expect([reset.path, reset.route, reset.data.params]).to.deep.equal(['/webhook/secrets/reset/[redacted]', '/webhook/secrets/reset/:token', { token: '[redacted]' }]);
      });

      it('shows [redacted] in the kept answer, where the workflow echoed the call and repeated its secrets in strings of its own', () => {
        const basic = answerOf(entryOf(entries, 'basic'));
        expect((basic[0]?.json.headers as Record<string, unknown>).authorization).to.equal('[redacted]');
        expect(basic[1]?.json).to.include({ note: 'signed in with [redacted]', link: 'https://example.com/cb?access_token=[redacted]' });
        expect(answerOf(entryOf(entries, 'bearer'))[1]?.json).to.include({ bearer: 'token was [redacted]' });
        expect(answerOf(entryOf(entries, 'jwt'))[1]?.json).to.include({ bearer: 'token was [redacted]' });
        expect(answerOf(entryOf(entries, 'ident'))[1]?.json).to.include({ partner: 'partner [redacted]' });
        expect(answerOf(entryOf(entries, 'reset'))[1]?.json).to.include({ reset: 'reset with [redacted]' });
      });
    });

    describe('with history.encryption', () => {
      let store: HistoryStore;
      let app: HistoryApp;
      let history: WebhookHistory;
      let sent: SentCalls;
      let entries: HistoryEntry[];
      before(async () => {
        store = await stores.open();
        app = await startHistoryApp({ store, ...CAPS, encryption: encryption() });
        history = app.middleware.history as WebhookHistory;
        sent = await sendSecretCalls(app.origin);
        entries = await keptCalls(history, sent);
      });
      after(() => app?.close());

      it('holds no body, header value or secret of a call where a reader of the store sees it: its data is sealed', async () => {
        const raw = await stores.rawText(store);
        for (const entry of entries) expect(raw).to.include(entry.id);
        expect([raw.includes(BODY_MARKER), raw.includes(TRACE_MARKER)]).to.deep.equal([false, false]);
        expect(leaked(raw, sent.secrets)).to.deep.equal([]);
        for (const record of await findAll(store, { limit: 50 })) expect(record.data).to.have.all.keys('sealed');
      });

      it('opens a kept call through get(): its body and headers as sent, its secrets [redacted]', async () => {
        const basic = await history.get(entryOf(entries, 'basic').id) as HistoryEntry;
        expect(basic.data.body).to.deep.equal(JSON.parse(BODY));
        expect(basic.data.headers).to.include({ 'x-trace': TRACE_MARKER, authorization: '[redacted]', cookie: '[redacted]' });
        expect(basic.data.query).to.deep.equal(SHOWN_QUERY);
        expect(answerOf(basic)[1]?.json).to.include({ note: 'signed in with [redacted]' });
      });

      it('refuses a call whose sealed data was moved onto it from another call with HISTORY_UNAVAILABLE, saying it was moved', async () => {
        const moved = await stores.moveData(store, entryOf(entries, 'basic').id, entryOf(entries, 'ident').id);
        const refused = await history.get(moved).then(() => undefined, (error: unknown) => error);
        expect(refused).to.be.instanceOf(WebhookError);
        expect((refused as WebhookError).code).to.equal('HISTORY_UNAVAILABLE');
        expect((refused as WebhookError).message).to.equal(`The kept call ${moved} cannot be read: it does not open with its key: it was changed, or moved from another call.`);
        expect(leaked(JSON.stringify(refused), sent.secrets)).to.deep.equal([]);
      });
    });
  });
}

if (findService(REDIS) === undefined) {
  markNotRun('call history in queue mode, sealed with the queue\'s keys', REDIS);
} else {
  describe('call history in queue mode, with only the queue\'s encryption keys', function () {
    this.timeout(60_000);
    let server: RedisServer;
    let queue: WebhookQueue;
    let worker: WebhookWorker;
    let app: HistoryApp;
    const store = new MemoryHistoryStore();
    let sent: SentCalls;
    let entries: HistoryEntry[];
    before(async () => {
      server = await RedisServer.start() as RedisServer;
      const keys = encryption();
      const silent = { error: () => undefined, warn: () => undefined };
      const name = `history-secrets-${process.pid}`;
      queue = createWebhookQueue({ connection: server.url, name, encryption: keys, logger: silent });
      worker = createWebhookWorker({ connection: server.url, name, executor: echoExecutor, encryption: keys, logger: silent });
      app = await startHistoryApp({ store, ...CAPS }, {}, queue.executor);
      sent = await sendSecretCalls(app.origin);
      entries = await keptCalls(app.middleware.history as WebhookHistory, sent);
    });
    after(() => closeAll(() => app?.close(), () => worker?.close({ timeoutMs: 1000 }), () => queue?.close(), () => server?.stop()));

    it('seals each kept call with the queue\'s keys: no body, header value or secret in the store, and get() opens it', async () => {
      const records = await findAll(store, { limit: 50 });
      for (const record of records) expect(record.data).to.have.all.keys('sealed');
      const raw = JSON.stringify(records);
      expect([raw.includes(BODY_MARKER), raw.includes(TRACE_MARKER)]).to.deep.equal([false, false]);
      expect(leaked(raw, sent.secrets)).to.deep.equal([]);
      const basic = entryOf(entries, 'basic');
      expect(basic.jobId).to.be.a('string');
      expect(basic.data.body).to.deep.equal(JSON.parse(BODY));
      expect(basic.data.headers).to.include({ 'x-trace': TRACE_MARKER, authorization: '[redacted]' });
      // The job leaves the checked header out (hand-off.ts); the query token travels, and its echo is redacted.
      expect(answerOf(basic)[1]?.json).to.include({ link: 'https://example.com/cb?access_token=[redacted]' });
    });
  });
}
