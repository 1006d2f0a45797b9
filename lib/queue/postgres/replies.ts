/**
 * The reply channel of queue mode on PostgreSQL: NOTIFY tells the web instance that waits for a reply, on a channel
 * per instance. A reply is stored in a row and the notification carries its id, in the same statement, so the row and
 * its notification commit together: always without a keyring (any role that may connect can NOTIFY, so a reply in a
 * notification could be anyone's), and for a sealed reply too large for a notification (PostgreSQL takes under 8000
 * bytes); a smaller sealed reply travels in its notification.
 * The listener holds one connection for LISTEN (of the directUrl's pool, when the other goes through a pooler in
 * transaction mode), replaces it when it drops, and says so (`resumed`), since what was sent meanwhile is lost.
 */
import { createHash } from 'node:crypto';
import { withDeadline } from '../../webhooks/registry/shared/contact.js';
import { connectWithin, type PostgresClientLike, type PostgresPoolLike } from '../../postgres/pool.js';
import type { ReplyMode } from '../store/contract.js';
import { ReplyTakes } from '../store/reply-takes.js';

/** Largest message sent inside its notification, in bytes (PostgreSQL's limit is 8000, channel name aside). */
export const INLINE_REPLY_BYTES = 7000;
/** How long a stored reply waits to be read: a listener that went away never reads it. */
const STORED_REPLY_MS = 10 * 60_000;
const RETRY_MS = [50, 100, 250, 500, 1000, 2000];

/** A message in its notification starts with `=`; one stored in a row is `#` and the row's id. */
const INLINE = '=';
const STORED = '#';

/** A channel name that is always a valid identifier, whatever the instance id holds: a digest of scope and id. */
export function replyChannelOf(scope: string, instanceId: string): string {
  return `ww_reply_${createHash('sha256').update(`${scope}\n${instanceId}`).digest('hex').slice(0, 40)}`;
}

export type RunStatement = (sql: string, values: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;

/** One statement: the notification, with the message in it (a small sealed one) or in a row of its own. */
export async function publishReply(query: RunStatement, schema: string, channel: string, message: string, now: number, mode: ReplyMode): Promise<void> {
  if (mode === 'sealed' && Buffer.byteLength(message) <= INLINE_REPLY_BYTES) {
    await query('SELECT pg_notify($1, $2)', [channel, INLINE + message]);
    return;
  }
  await query(`WITH stored AS (INSERT INTO ${schema}.queue_replies (message, expires_at) VALUES ($2, $3) RETURNING reply_id)
    SELECT pg_notify($1, '${STORED}' || reply_id) FROM stored`, [channel, message, now + STORED_REPLY_MS]);
}

interface Subscription {
  message(text: string): void;
  resumed(): void;
}

export class ReplyListener {
  readonly #pool: () => Promise<PostgresPoolLike>;
  readonly #query: RunStatement;
  readonly #schema: string;
  readonly #timeoutMs: number;
  readonly #report: (error: unknown) => void;
  readonly #mode: ReplyMode;
  /** Stored replies named by notifications, read a batch at a time: a flood of names is not a flood of statements. */
  readonly #takes: ReplyTakes;
  readonly #channels = new Map<string, Subscription>();
  readonly #gone = new WeakSet<PostgresClientLike>();
  #client: PostgresClientLike | undefined;
  #opening: Promise<void> | undefined;
  #failures = 0;
  #lost = false;
  #stopped = false;
  /** Messages are handed on in the order their notifications came, a stored one once it is read. */
  #order: Promise<void> = Promise.resolve();

  constructor(pool: () => Promise<PostgresPoolLike>, query: RunStatement, schema: string, timeoutMs: number, report: (error: unknown) => void, mode: ReplyMode) {
    this.#pool = pool;
    this.#mode = mode;
    this.#query = query;
    this.#schema = schema;
    this.#timeoutMs = timeoutMs;
    this.#report = report;
    this.#takes = new ReplyTakes((ids) => this.#takeMany(ids), report);
  }

  /** Resolves once the channel is heard. */
  async listen(channel: string, message: (text: string) => void, resumed: () => void): Promise<void> {
    this.#channels.set(channel, { message, resumed });
    if (this.#client === undefined) {
      await (this.#opening ??= this.#open().finally(() => { this.#opening = undefined; }));
      if (this.#client === undefined) throw new Error('the PostgreSQL connection for replies could not be opened');
      return;
    }
    await withDeadline(this.#client.query(`LISTEN ${channel}`), this.#timeoutMs, () => new Error(`LISTEN unanswered within ${this.#timeoutMs} ms`));
  }

  readonly #onNotification = (note: { channel: string; payload?: string }): void => {
    const subscription = this.#channels.get(note.channel);
    const payload = note.payload ?? '';
    if (subscription === undefined) return;
    const stored = payload.startsWith(STORED);
    // Stored mode: a reply inside a notification was not sent by a worker, which stores every reply. Dropped unheard:
    // reporting each would let anyone who may NOTIFY fill the host's log.
    if (!stored && this.#mode === 'stored') return;
    const id = payload.slice(1);
    if (stored && !/^\d{1,19}$/.test(id)) return;
    const text = stored ? this.#takes.take(id) : Promise.resolve(id);
    this.#order = this.#order.then(async () => {
      const message = await text.catch((error: unknown) => { this.#report(error); return undefined; });
      // A stored message that could not be read is lost as a whole: the waiting call looks at its job.
      if (message !== undefined) subscription.message(message);
    });
  };

  /**
   * A statement runner on the listening connection, which stays open and warm: for writes that must reach the
   * database the moment it answers again (refusal marks), ahead of anything that first needs a connection of the
   * pool. Undefined while that connection is being replaced.
   */
  warm(): RunStatement | undefined {
    const client = this.#client;
    if (client === undefined) return undefined;
    return (sql, values) => withDeadline(client.query(sql, values), this.#timeoutMs, () => new Error(`no answer within ${this.#timeoutMs} ms`));
  }

  /** Reads and removes stored replies, a batch in one statement (reply-takes.ts). */
  readonly #takeMany = async (ids: readonly string[]): Promise<ReadonlyMap<string, string>> => {
    const found = await this.#query(`DELETE FROM ${this.#schema}.queue_replies WHERE reply_id = ANY($1::bigint[]) RETURNING reply_id, message`, [ids]);
    return new Map(found.rows.map((row) => [String(row.reply_id), String(row.message)]));
  };

  /** Opens the LISTEN connection (again, after a drop) and listens on every channel. */
  async #open(): Promise<void> {
    let client: PostgresClientLike | undefined;
    try {
      client = await connectWithin(await this.#pool(), this.#timeoutMs);
      const opened = client;
      opened.on('error', (error) => this.#dropped(opened, error));
      opened.on('notification', this.#onNotification);
      for (const channel of this.#channels.keys()) {
        await withDeadline(opened.query(`LISTEN ${channel}`), this.#timeoutMs, () => new Error(`LISTEN unanswered within ${this.#timeoutMs} ms`));
      }
      if (this.#gone.has(opened)) return;
      if (this.#stopped) {
        this.#release(opened, new Error('the reply listener stopped'));
        return;
      }
      this.#client = opened;
      this.#failures = 0;
      if (this.#lost) {
        this.#lost = false;
        for (const subscription of this.#channels.values()) subscription.resumed();
      }
    } catch (error) {
      if (client !== undefined) this.#dropped(client, error);
      else this.#retry(error);
    }
  }

  #dropped(client: PostgresClientLike, error: unknown): void {
    if (this.#gone.has(client)) return;
    if (this.#client === client) this.#client = undefined;
    this.#release(client, error instanceof Error ? error : new Error(String(error)));
    this.#retry(error);
  }

  #release(client: PostgresClientLike, error: Error): void {
    this.#gone.add(client);
    client.removeListener('notification', this.#onNotification as () => void);
    try {
      // Released with an error, so the pool closes it rather than lending it on still listening.
      client.release(error);
    } catch {
      // Released already.
    }
  }

  #retry(error: unknown): void {
    if (this.#stopped) return;
    this.#lost = true;
    this.#report(error);
    const delay = RETRY_MS[Math.min(this.#failures, RETRY_MS.length - 1)] as number;
    this.#failures += 1;
    setTimeout(() => { this.#opening ??= this.#open().finally(() => { this.#opening = undefined; }); }, delay).unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#opening;
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined && !this.#gone.has(client)) this.#release(client, new Error('the reply listener stopped'));
    await this.#order;
  }
}
