/**
 * What the specs of history over a store that goes away share: each shared store's history store made on a URL
 * whether or not its server runs (its appends counted as they reach it), an Express 5 host with the middleware and
 * the console keeping calls there, whose logger and executor the spec reads, and the process's unhandled rejections.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { PostgresHistoryStore } from 'workflow-webhooks/postgres';
import { RedisHistoryStore } from 'workflow-webhooks/redis';
import { WebhookError, type HistoryStore, type WebhookHistory, type WebhookRun } from '../../../lib/index.js';
import { CONSOLE_BASE, consoleExecutor, startConsoleApp, WEBHOOK_BASE, type ConsoleApp } from '../console-app.js';

/** The writer's batches come this often: small, so that a spec waits little for them. */
export const FLUSH_MS = 20;

export interface OpenedHistoryStore {
  store: HistoryStore;
  /** How many appends reached the store so far, written or refused. */
  appends(): number;
  close(): Promise<void>;
}

/** The store of `name` at `url` (its server up or not): a prefix or schema of its own. */
export function historyStoreAt(name: 'Redis' | 'PostgreSQL', url: string): OpenedHistoryStore {
  const tag = randomUUID().slice(0, 8);
  let store: HistoryStore;
  let client: ReturnType<typeof createClient> | undefined;
  if (name === 'Redis') {
    client = createClient({ url });
    client.on('error', () => undefined);
    // A refused connection is not told at once (node-redis tries again): a short deadline keeps the spec's waits short.
    store = new RedisHistoryStore({ client, prefix: `down-${tag}:`, commandTimeoutMs: 500 });
  } else {
    store = new PostgresHistoryStore({ connectionString: url, schema: `down_${tag}` });
  }
  let appends = 0;
  const append = store.append.bind(store);
  store.append = (records) => {
    appends += 1;
    return append(records);
  };
  return {
    store,
    appends: () => appends,
    async close() {
      await store.close?.();
      if (client?.isOpen === true) client.destroy();
    },
  };
}

export interface DownApp {
  app: ConsoleApp;
  history: WebhookHistory;
  /** Every run the executor got, replays included. */
  runs: WebhookRun[];
  /** Every line the host's logger got (warn and error), in order. */
  lines: string[];
  /** POSTs an order as `requestId`; resolves with the answer's status. A call that hangs fails the test, naming it. */
  post(requestId: string): Promise<number>;
  /** GET /api/history of the console: its status and error code. */
  consoleFind(): Promise<{ status: number; code: string | undefined }>;
  /** The request ids of every kept call, oldest first. */
  keptRequestIds(): Promise<string[]>;
}

export async function startDownApp(store: HistoryStore): Promise<DownApp> {
  const runs: WebhookRun[] = [];
  const lines: string[] = [];
  const heard = (_fields: unknown, message?: string): void => { lines.push(String(message)); };
  const app = await startConsoleApp({
    executor: (run) => {
      runs.push(run);
      return consoleExecutor(run);
    },
    middleware: { logger: { warn: heard, error: heard }, history: { store, flushMs: FLUSH_MS, bodyBytes: 65_536 } },
  });
  const history = app.middleware.history as WebhookHistory;
  return {
    app, history, runs, lines,
    async post(requestId) {
      const answer = await fetch(`${app.origin}${WEBHOOK_BASE}/webhook/orders`, {
        method: 'POST', body: JSON.stringify({ requestId }), headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        signal: AbortSignal.timeout(10_000),
      }).catch((error: unknown) => { throw new Error(`the call ${requestId} got no answer: ${String(error)}`); });
      await answer.arrayBuffer();
      return answer.status;
    },
    async consoleFind() {
      const answer = await fetch(`${app.origin}${CONSOLE_BASE}/api/history`, { signal: AbortSignal.timeout(10_000) });
      const body = await answer.json() as { code?: string };
      return { status: answer.status, code: body.code };
    },
    async keptRequestIds() {
      const page = await history.find({}, { limit: 500 });
      return page.entries.map((entry) => String(entry.requestId)).reverse();
    },
  };
}

/** The code of a WebhookError the work rejects with; a resolution or another error fails the test. */
export async function webhookErrorCode(work: Promise<unknown>): Promise<string> {
  const error = await work.then(() => undefined, (failure: unknown) => failure);
  if (!(error instanceof WebhookError)) throw new Error(`a WebhookError was expected; got ${error === undefined ? 'a resolution' : String(error)}`);
  return error.code;
}

/** Polls `probe` until it is true (a throw counts as false), failing the test with `what` past `limitMs`. */
export async function eventually(probe: () => boolean | Promise<boolean>, what: string, limitMs = 20_000): Promise<void> {
  const until = Date.now() + limitMs;
  for (;;) {
    if (await Promise.resolve().then(probe).catch(() => false)) return;
    if (Date.now() > until) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Collects the process's unhandled rejections from `before` to `after` of the describe it is called in. */
export function unhandledRejections(): unknown[] {
  const heard: unknown[] = [];
  const listener = (reason: unknown): void => { heard.push(reason); };
  before(() => { process.on('unhandledRejection', listener); });
  after(() => { process.off('unhandledRejection', listener); });
  return heard;
}

/** The lines of the history writer the host's logger got: its outage, its recovery, what close() could not write. */
export const historyLines = (lines: readonly string[]): string[] => lines.filter((line) => line.startsWith('workflow-webhooks: history:'));

export const OUTAGE_LINE = 'workflow-webhooks: history: the store did not take a batch of calls; they are kept in memory and written when it answers';
export const RECOVERY_LINE = 'workflow-webhooks: history: the store takes calls again';
/** The console logs each request it answers 5xx: GET /api/history while the store is away is one. */
export const CONSOLE_FIND_FAILED = 'workflow-webhooks/console: GET /api/history failed';
