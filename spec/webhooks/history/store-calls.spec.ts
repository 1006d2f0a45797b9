/**
 * A history store the host wrote that fails: finding, opening and replaying kept calls are refused with history's
 * 503 (HISTORY_UNAVAILABLE, Retry-After, a hint), never in the store's own words, which reach the host's log as the
 * cause; a refusal of the library's own that such a store passes on is answered as it is.
 */
import { expect } from 'chai';
import { MemoryHistoryStore, WebhookError, type HistoryRecord, type HistoryStorePage, type HistoryStoreQuery, type ReplayClaim } from '../../../lib/index.js';
import { closeAll } from '../../support/close-all.js';
import { CONSOLE_BASE, startConsoleApp, WEBHOOK_BASE, type ConsoleApp } from '../../support/console-app.js';

/** What the host's store says when it fails: details of the host's network, for its log only. */
const STORE_WORDS = 'archive-db.internal:5433 refused the connection';

/** The host's store: calls kept in memory, and the reads named in `failing` rejected with the store's own error. */
class ArchiveStore extends MemoryHistoryStore {
  readonly failing = new Set<'find' | 'get' | 'claimReplay'>();
  /** Thrown instead of the store's own error, when set. */
  refusal: unknown;

  override find(query: HistoryStoreQuery): Promise<HistoryStorePage> {
    return this.failing.has('find') ? this.#fail() : super.find(query);
  }

  override get(id: string): Promise<HistoryRecord | undefined> {
    return this.failing.has('get') ? this.#fail() : super.get(id);
  }

  override claimReplay(id: string, again: boolean): Promise<ReplayClaim> {
    return this.failing.has('claimReplay') ? this.#fail() : super.claimReplay(id, again);
  }

  #fail(): Promise<never> {
    return Promise.reject(this.refusal ?? new Error(STORE_WORDS));
  }
}

/** What a refusal says to the caller and to the log, in parts a test compares. */
function refusalOf(error: unknown): Record<string, unknown> {
  const refused = error as WebhookError;
  return {
    code: refused.code, status: refused.status, retryAfter: refused.headers?.['retry-after'], hint: typeof refused.hint === 'string',
    saysStoreWords: refused.message.includes(STORE_WORDS), cause: (refused.cause as Error | undefined)?.message,
  };
}

const REFUSED = { code: 'HISTORY_UNAVAILABLE', status: 503, retryAfter: '5', hint: true, saysStoreWords: false, cause: STORE_WORDS };

describe('history over a store the host wrote, when it fails', () => {
  let app: ConsoleApp | undefined;
  let store: ArchiveStore;
  let runs = 0;
  const logged: Array<Record<string, unknown>> = [];
  beforeEach(async () => {
    store = new ArchiveStore();
    runs = 0;
    logged.length = 0;
    const heard = (fields: unknown): void => { logged.push(fields as Record<string, unknown>); };
    app = await startConsoleApp({
      executor: (run) => {
        runs += 1;
        return { items: run.items };
      },
      middleware: { logger: { warn: heard, error: heard }, history: { store, flushMs: 20, bodyBytes: 65_536 } },
    });
  });
  afterEach(() => closeAll(() => app?.close()));

  /** Keeps one call and gives its id. */
  async function keptCall(): Promise<string> {
    const answer = await fetch(`${app!.origin}${WEBHOOK_BASE}/webhook/orders`, {
      method: 'POST', body: JSON.stringify({ order: 7 }), headers: { 'content-type': 'application/json' },
    });
    await answer.arrayBuffer();
    await app!.middleware.history!.flush();
    const [entry] = (await app!.middleware.history!.find()).entries;
    return entry!.id;
  }

  it('answers the console\'s list 503 HISTORY_UNAVAILABLE with Retry-After and a hint, and logs the store\'s own words only as the cause', async () => {
    store.failing.add('find');
    const answer = await fetch(`${app!.origin}${CONSOLE_BASE}/api/history`);
    const body = await answer.json() as { code?: string; message?: string; hint?: string };
    expect([answer.status, answer.headers.get('retry-after'), body.code]).to.deep.equal([503, '5', 'HISTORY_UNAVAILABLE']);
    expect(body.hint).to.be.a('string').that.is.not.empty;
    expect(JSON.stringify(body)).not.to.include(STORE_WORDS);
    expect(logged.map((fields) => [fields.code, (fields.cause as { message?: string } | undefined)?.message]))
      .to.deep.equal([['HISTORY_UNAVAILABLE', STORE_WORDS]]);
  });

  it('refuses opening and replaying a kept call alike, and runs nothing', async () => {
    const id = await keptCall();
    store.failing.add('get');
    expect(refusalOf(await app!.middleware.history!.get(id).catch((error: unknown) => error))).to.deep.equal(REFUSED);
    store.failing.clear();
    store.failing.add('claimReplay');
    expect(refusalOf(await app!.middleware.history!.replay(id, { by: 'ops@example.com' }).catch((error: unknown) => error))).to.deep.equal(REFUSED);
    expect(runs).to.equal(1);
  });

  it('answers a WebhookError the store rejects with as it is, its words and hint kept', async () => {
    const own = new WebhookError('HISTORY_UNAVAILABLE', 'The archive is read-only until its migration ends.', { hint: 'Try again after 04:00 UTC.' });
    store.refusal = own;
    store.failing.add('find');
    expect(await app!.middleware.history!.find().catch((error: unknown) => error)).to.equal(own);
  });
});
