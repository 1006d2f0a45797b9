/**
 * Call history's shapes: what a store keeps of a call (`HistoryRecord`), the store contract every store implements
 * (memory, Redis, PostgreSQL; one conformance suite, spec/support/history-contract/), and what the middleware's
 * `history` API gives a host and the console (entries, finding, replaying). The fields a store filters by are plain;
 * what the call sent and got is `data`, in clear or sealed under the `encryption` keys.
 */
import type { SealedValue } from './sealed-value.js';

/** Which calls history keeps: `failed` keeps calls with an error code or no answer sent. */
export type HistoryKeep = 'all' | 'failed' | 'none';

/** A replayed call's run: `of` the history entry it replays, `at` when that call arrived (epoch ms), `by` who replayed it. */
export interface RunReplay {
  of: string;
  at: number;
  by: string;
}

/** One file of a kept call: always its name, type and size; its bytes (base64) only when history keeps files. */
export interface HistoryFile {
  /** The binary property of the trigger item (`data`, `file0`, …). */
  property: string;
  fileName?: string;
  mimeType: string;
  size: number;
  /** The file's bytes, base64, when `history.fileBytes` kept them (a file larger than that keeps none). */
  data?: string;
}

/** What history keeps of a call's request and its outcome: sealed with `encryption`, redacted always. */
export interface HistoryData {
  /** Query, headers and path parameters, credentials `[redacted]`. */
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  params: Record<string, unknown>;
  /**
   * `whole`: `body` is the body the workflow got; `truncated`: it was larger than `history.bodyBytes`, and `body` is
   * the start of its JSON text; `none`: bodies are not kept (`bodyBytes: 0`) or the call had none.
   */
  bodyKept: 'whole' | 'truncated' | 'none';
  body?: unknown;
  /** How the body was parsed (`json`, `form`, `text`, `xml`, `multipart`, `binary`); absent: no body. */
  bodyKind?: string;
  /** Bytes of the body: what the caller sent (Content-Length), else of its JSON text; kept or not. */
  bodySize: number;
  files: HistoryFile[];
  /** The workflow's answer (its output items), up to `history.answerBytes` of JSON; `answerKept` says how much. */
  answer?: unknown;
  answerKept?: 'whole' | 'truncated';
  /**
   * The run's failure, or why the call was refused after its guards: code, message, for a payload its findings, and
   * for a workflow's failure the message it threw (`cause`, credentials redacted, at most 2 000 characters).
   */
  error?: { code: string; message: string; cause?: string; errors?: { path: string; message: string }[] };
  /** Where the caller reached the address (origin and mount path): a replay's `webhookUrl` starts there. */
  baseUrl?: string;
}

/**
 * A call as a history store keeps it. `id` sorts as the call's arrival does: a newer call has a greater id, so
 * "newest first" is "greatest id first" in every store, and a cursor is an id.
 */
export interface HistoryRecord {
  id: string;
  /** When the call arrived, epoch milliseconds. */
  at: number;
  workflowId: string;
  nodeName: string;
  method: string;
  /** The path after the mount (`/webhook/orders/42`), without its query; a path parameter named like a credential is `[redacted]`. */
  path: string;
  /** The address as registered: `/webhook/orders/:orderId`. */
  route: string;
  /** The status sent; absent when no answer went out (the caller hung up first). */
  status?: number;
  /** The error code of a failed or refused call. */
  code?: string;
  durationMs: number;
  /** The call's request id (`x-request-id`, else the id the middleware gave it; `run.callId`). */
  requestId: string;
  /** The instance that served it (`history.instance`). */
  instance?: string;
  /** The id of the entry this call replays, and who replayed it. */
  replayOf?: string;
  replayedBy?: string;
  /** The wait this call resumed, the queue job that holds its run. */
  waitId?: string;
  jobId?: string;
  /** How many times this entry was replayed (the store counts it: `claimReplay`). */
  replays: number;
  /** The request and outcome: clear, or sealed under the `encryption` key named in it. */
  data: { clear: HistoryData } | { sealed: SealedValue };
}

/** A call as the history API gives it: the record, its data opened. */
export type HistoryEntry = Omit<HistoryRecord, 'data'> & { data: HistoryData };

/** `2` for 2xx, … ; `0`: calls no answer went out for. */
export type StatusClass = 0 | 1 | 2 | 3 | 4 | 5;

/** What finds calls; every field given must match. */
export interface HistoryFilter {
  workflowId?: string;
  nodeName?: string;
  method?: string;
  statusClass?: StatusClass;
  code?: string;
  /** Arrived at or after / before this time, epoch milliseconds. */
  from?: number;
  to?: number;
  requestId?: string;
  /** Replays of this entry. */
  replayOf?: string;
  /** A value at a place of the body: `{ pointer: '/order/status', equals: 'paid' }` (a JSON pointer, RFC 6901). */
  body?: { pointer: string; equals: string | number | boolean | null };
}

/** What a store is asked: the filter, where to go on from (an id: only older calls), and how many it may give. */
export interface HistoryStoreQuery extends HistoryFilter {
  before?: string;
  limit: number;
}

/**
 * A store's answer: the matching records, newest first, and `next` when there may be more (pass it as `before`).
 * A store that filters what it reads (Redis, memory) may stop early, with fewer than `limit`, and give `next`.
 * The body filter is the store's where it can read the body (clear data); the history API checks it again.
 */
export interface HistoryStorePage {
  records: HistoryRecord[];
  next?: string;
}

/** A replay's claim of an entry: `claimed`, or `replayedBefore` (and no `again`), or `missing`. */
export type ReplayClaim = { outcome: 'claimed'; replays: number } | { outcome: 'replayedBefore'; replays: number } | { outcome: 'missing' };

/** How long a store keeps calls: it removes older ones, and the oldest past the count, by itself. */
export interface HistoryRetention {
  /** Default 14 days (n8n's EXECUTIONS_DATA_MAX_AGE). */
  maxAgeMs: number;
  /** Default 10 000 (n8n's EXECUTIONS_DATA_PRUNE_MAX_COUNT); the memory store's default is 1 000. */
  maxEntries: number;
}

/**
 * Where history is kept. Every store passes the same conformance suite. Writes come in batches, after the calls
 * were answered; a store never sits on a call's path.
 */
export interface HistoryStore {
  readonly retention: HistoryRetention;
  /**
   * Adds calls (one batch: one round trip). The records are the store's to read, never to change. A record whose id
   * the store holds already is left as it is: the writer writes a batch again when its answer was lost, and the
   * replays claimed since must stand.
   */
  append(records: readonly HistoryRecord[]): Promise<void>;
  get(id: string): Promise<HistoryRecord | undefined>;
  find(query: HistoryStoreQuery): Promise<HistoryStorePage>;
  /**
   * Counts a replay of an entry, atomically: an entry replayed before is claimed again only with `again`, so two
   * replays of one call need two requests that say so, whichever instances they reach.
   */
  claimReplay(id: string, again: boolean): Promise<ReplayClaim>;
  /** Takes back a claim whose replay could not start (the queue refused the job), so it needs no `again`. */
  giveBackReplay(id: string): Promise<void>;
  /** Removes calls past the retention now (the history writer calls it every minute); resolves with how many went. */
  prune(now?: number): Promise<number>;
  close?(): Promise<void>;
}

/** How one replay goes: who asks (recorded on the run and the new entry), and `again` to replay a call replayed before. */
export interface ReplayOptions {
  by: string;
  again?: boolean;
}

/** What a replay did: the new entry it made, and how its run ended (a run that failed is an outcome, not a throw). */
export interface ReplayResult {
  /** The replay's own history entry (linked to the original by `replayOf`). */
  entryId: string;
  of: string;
  /** The status the call would have been answered with; absent when the run was told to stop. */
  status?: number;
  code?: string;
  /** Queue mode: the job that holds the run. */
  jobId?: string;
  error?: HistoryData['error'];
}

export interface BulkReplayOptions extends ReplayOptions {
  /** Replays started per second (default 5, at most 1 000). */
  perSecond?: number;
  /** Replays under way at once (default 4). */
  concurrency?: number;
}

/**
 * A bulk replay's progress: calls `matched` by the filter so far, then each either `replayed` (its run answered
 * 2xx or 3xx), `failed` (it ran and failed), `refused` (it could not run: its payload schema refuses it now, or it
 * is not replayable) or `skipped` (replayed before, without `again`).
 */
export interface BulkReplayProgress {
  id: string;
  state: 'running' | 'done' | 'stopped';
  filter: HistoryFilter;
  by: string;
  perSecond: number;
  startedAt: number;
  endedAt?: number;
  matched: number;
  replayed: number;
  failed: number;
  refused: number;
  skipped: number;
  /**
   * While running: why it waits (the history store does not answer; it goes on once it does). Once ended: why it
   * ended early, when it did.
   */
  error?: string;
}

export interface BulkReplay {
  readonly id: string;
  progress(): BulkReplayProgress;
  /** Starts no more replays; those under way finish. */
  stop(): void;
  /** Settles with the last progress once it is done or stopped. */
  readonly done: Promise<BulkReplayProgress>;
}

/** A page of found calls, newest first; `next` is the cursor of the following page. */
export interface HistoryPage {
  entries: HistoryEntry[];
  next?: string;
}

/** `middleware.history`, when the middleware keeps history: find, open and replay kept calls. */
export interface WebhookHistory {
  /** Calls matching the filter, newest first, `limit` (default 50, at most 500) a page, from `cursor` on. */
  find(filter?: HistoryFilter, page?: { cursor?: string; limit?: number }): Promise<HistoryPage>;
  get(id: string): Promise<HistoryEntry | undefined>;
  /**
   * Runs a kept call again through its webhook as active now; the run gets `run.replay`. Rejects with
   * HISTORY_NOT_FOUND, HISTORY_REPLAYED_BEFORE, HISTORY_NOT_REPLAYABLE, PAYLOAD_INVALID (its schema refuses it now)
   * or HISTORY_UNAVAILABLE; a run that fails resolves with its failure.
   */
  replay(id: string, options: ReplayOptions): Promise<ReplayResult>;
  /** Replays every call the filter matches now, at `perSecond`; calls kept after it started are not among them. */
  replayAll(filter: HistoryFilter, options: BulkReplayOptions): BulkReplay;
  /** This instance's bulk replays, newest first. */
  bulkReplays(): BulkReplayProgress[];
  bulkReplay(id: string): BulkReplay | undefined;
  /** Hears the progress of every bulk replay of this instance; returns the unsubscribe. */
  onProgress(listener: (progress: BulkReplayProgress) => void): () => void;
  /** Writes the calls waiting for the next batch now. */
  flush(): Promise<void>;
}
