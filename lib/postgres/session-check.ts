/**
 * Finds out at start whether the connections the library LISTENs on keep a session. Through a pooler in transaction
 * mode (PgBouncer `pool_mode = transaction`, the pooled URLs of Supabase and Neon) a LISTEN is accepted and then
 * hears nothing, since the server connection it ran on is lent to someone else after the statement: changes and
 * replies would then arrive late or never, with no error anywhere. So the part LISTENs on a channel of its own,
 * sends it one notification the way its real notifications will travel, and refuses to start when none arrives.
 */
import { randomBytes } from 'node:crypto';
import { unavailable, withDeadline } from '../webhooks/registry/shared/contact.js';
import { connectWithin, isOutage, type PostgresClientLike, type PostgresPoolLike } from './pool.js';

export interface SessionCheck {
  /** The pool whose connections will LISTEN. */
  listen: PostgresPoolLike;
  /** The pool the part's notifications will be sent through (the same one, or the pooled one beside a direct one). */
  notify: PostgresPoolLike;
  /** Each step's deadline, and how long the notification may take to arrive. */
  timeoutMs: number;
  /** The part that refuses, as the user created it: `PostgresWebhookRegistry`, `createWebhookQueue`. */
  who: string;
  /** Whether the LISTEN connection is the one of option `directUrl`. */
  direct: boolean;
}

/**
 * Resolves when a notification reached the LISTEN; throws a TypeError (a setting to change, not an outage to wait
 * out) when it did not, and REGISTRY_UNAVAILABLE, as every statement of the library's does, when the database could
 * not be reached meanwhile.
 */
export async function checkSession(check: SessionCheck): Promise<void> {
  try {
    await listenAndNotify(check);
  } catch (error) {
    throw isOutage(error) ? unavailable('PostgreSQL', error, 'checking that the connection for LISTEN keeps a session') : error;
  }
}

async function listenAndNotify(check: SessionCheck): Promise<void> {
  const channel = `ww_session_check_${randomBytes(8).toString('hex')}`;
  const listener = await connectWithin(check.listen, check.timeoutMs);
  let arrived = (): void => undefined;
  let dropped = (_error: Error): void => undefined;
  const outcome = new Promise<boolean>((resolve, reject) => {
    arrived = () => resolve(true);
    dropped = reject;
  });
  // A drop after the outcome was decided is heard by nobody else.
  outcome.catch(() => undefined);
  const onNotification = (message: { channel: string }): void => { if (message.channel === channel) arrived(); };
  const onError = (error: Error): void => dropped(error);
  listener.on('notification', onNotification);
  listener.on('error', onError);
  try {
    await bounded(listener.query(`LISTEN ${channel}`), check.timeoutMs);
    await notifyOnce(check.notify, channel, check.timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const heard = await Promise.race([outcome, new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), check.timeoutMs); })])
      .finally(() => clearTimeout(timer));
    // Still answering: the silence was the pooler's, not a connection that dropped while it waited.
    await bounded(listener.query(`UNLISTEN ${channel}`), check.timeoutMs);
    if (!heard) throw new TypeError(refusal(check));
    listener.removeListener('notification', onNotification as () => void);
    listener.removeListener('error', onError as () => void);
    listener.release();
  } catch (error) {
    listener.removeListener('notification', onNotification as () => void);
    // Destroyed, not lent on: it may still be listening, or be gone.
    listener.release(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
}

async function notifyOnce(pool: PostgresPoolLike, channel: string, timeoutMs: number): Promise<void> {
  const sender: PostgresClientLike = await connectWithin(pool, timeoutMs);
  try {
    await bounded(sender.query('SELECT pg_notify($1, \'\')', [channel]), timeoutMs);
    sender.release();
  } catch (error) {
    sender.release(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
}

function bounded<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  return withDeadline(work, timeoutMs, () => new Error(`no answer within ${timeoutMs} ms`));
}

function refusal({ who, direct, timeoutMs }: SessionCheck): string {
  const heard = `a notification sent to a LISTEN on it did not arrive within ${timeoutMs} ms`;
  if (direct) {
    return `${who}: the connection of option directUrl keeps no session (${heard}). LISTEN needs a session: directUrl must reach `
      + 'the same database as the pooled connection, either directly or through a pooler in session mode, never one in transaction mode.';
  }
  return `${who}: the PostgreSQL connection keeps no session (${heard}), as through a pooler in transaction mode. LISTEN needs a `
    + 'session: give option directUrl, a connection string that reaches the same database directly (or through a pooler in session '
    + 'mode), used for LISTEN and migrations while everything else goes through the pooled one; or connect through a pooler in session mode.';
}
