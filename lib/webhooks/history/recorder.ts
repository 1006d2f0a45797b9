/**
 * The middleware's side of history: which calls are kept (the workflow's `settings.history`, else `history.keep`),
 * a kept call's record made and handed to the batching writer, sealed under the `encryption` keys on its way, and
 * a stored record opened again for the history API.
 */
import { WebhookError } from '../../core/errors.js';
import type { HistoryData, HistoryEntry, HistoryRecord } from '../../core/history.js';
import type { WebhookLogger } from '../../core/logger.js';
import { isSealed, open, seal } from '../../core/sealing.js';
import { redactPath } from '../guards/secrets.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import { historyId } from './ids.js';
import { KeptCall } from './kept-call.js';
import { freezeRecord } from './record-text.js';
import type { ResolvedHistory } from './options.js';
import { HistoryWriter } from './writer.js';

/** The first segment of a route (`/webhook/orders`: `webhook`), its prefix. */
function prefixOf(route: string): string {
  const end = route.indexOf('/', 1);
  return end === -1 ? route.slice(1) : route.slice(1, end);
}

/** The additional data a call's sealed data is bound to: its id, so a store writer cannot move it to another call. */
const sealedContext = (id: string): string => `history:${id}`;

export class HistoryRecorder {
  readonly settings: ResolvedHistory;
  readonly writer: HistoryWriter;

  /** Replays under way: close() lets them end (within its bound) before the last batch, so that their entries are in it. */
  readonly #replays = new Set<Promise<unknown>>();

  /** The path and route last shown for each webhook's calls (see open). */
  readonly #shown = new WeakMap<RegisteredWebhook, { route: string; rawPath: string; path: string }>();
  #baseUrl: string | undefined;

  constructor(settings: ResolvedHistory, logger: WebhookLogger) {
    this.settings = settings;
    this.writer = new HistoryWriter({ store: settings.store, flushMs: settings.flushMs, maxPending: settings.maxPending, logger });
  }

  /**
   * A production call or a resume that passed its guards, when its workflow keeps calls; undefined otherwise. Test
   * calls are not kept: the console's listen shows them, and they cannot be replayed.
   */
  open(webhook: RegisteredWebhook, where: { kind: 'production' | 'test' | 'waiting'; method: string; rawPath: string; route: string }): KeptCall | undefined {
    if (where.kind === 'test' || (webhook.settings?.history ?? this.settings.keep) === 'none') return undefined;
    if (where.kind === 'waiting') {
      return new KeptCall(this, webhook, { method: where.method, path: `/${prefixOf(where.route)}/${where.rawPath}`, route: where.route, waitId: where.rawPath.split('/')[0] });
    }
    // As recent calls show it: the prefix, then the path with a credential-named parameter (`reset/:token`) redacted.
    // A webhook's calls mostly come by one path: its strings are made once, and the call's own become garbage at once
    // instead of living in the record until its batch is written.
    let shown = this.#shown.get(webhook);
    if (shown?.route !== where.route || shown.rawPath !== where.rawPath) {
      shown = { route: where.route, rawPath: where.rawPath, path: `/${prefixOf(where.route)}/${redactPath(where.rawPath, webhook.path)}` };
      this.#shown.set(webhook, shown);
    }
    return new KeptCall(this, webhook, { method: where.method, path: shown.path, route: shown.route, waitId: undefined });
  }

  /** Counts a replay as under way until it settles. */
  replaying<T>(replay: Promise<T>): Promise<T> {
    const settled = replay.then(() => undefined, () => undefined);
    this.#replays.add(settled);
    void settled.then(() => { this.#replays.delete(settled); });
    return replay;
  }

  /** Resolves once the replays under way have ended, or `timeoutMs` has passed. */
  async replaysEnded(timeoutMs: number): Promise<void> {
    if (this.#replays.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs).unref(); });
    await Promise.race([Promise.all(this.#replays), gaveUp]);
    clearTimeout(timer);
  }

  /**
   * Where callers reached the address (origin and mount path), from the run's webhookUrl and the call's route; the
   * string of the calls before when it is the same, so that the call's own is garbage at once.
   */
  baseUrlOf(webhookUrl: string, route: string): string | undefined {
    if (!webhookUrl.endsWith(route)) return undefined;
    const last = this.#baseUrl;
    if (last !== undefined && webhookUrl.length === last.length + route.length && webhookUrl.startsWith(last)) return last;
    this.#baseUrl = webhookUrl.slice(0, -route.length);
    return this.#baseUrl;
  }

  /** Whether a finished call is kept: `failed` keeps calls with an error code or no answer sent, and 4xx/5xx answers. */
  keeps(webhook: RegisteredWebhook, record: HistoryRecord): boolean {
    const keep = webhook.settings?.history ?? this.settings.keep;
    if (keep === 'all') return true;
    if (keep === 'none') return false;
    return record.code !== undefined || record.status === undefined || record.status >= 400;
  }

  /**
   * Gives the record its id, seals its data when there are keys, makes its text, and queues it for the next batch.
   * `bodyText`: the clear body kept whole as JSON text, not in the record's data yet.
   */
  write(record: HistoryRecord, bodyText?: string): string {
    record.id = historyId(record.at);
    const { keyring } = this.settings;
    if (keyring !== undefined && 'clear' in record.data) {
      if (bodyText !== undefined) record.data.clear.body = JSON.parse(bodyText) as unknown;
      record.data = { sealed: seal(keyring, record.data.clear, sealedContext(record.id)) };
    }
    // A record without a body's text is serialised by its store when its batch is written (recordText), off the
    // call's path and with no text held beside it meanwhile; the call changes nothing of it after this.
    if (keyring === undefined && bodyText !== undefined) freezeRecord(record, bodyText);
    this.writer.add(record);
    return record.id;
  }

  /** A stored record with its data opened; a sealed one no key opens is HISTORY_UNAVAILABLE, saying why. */
  opened(record: HistoryRecord): HistoryEntry {
    const { data, ...fields } = record;
    if ('clear' in data) return { ...fields, data: data.clear };
    if (!isSealed(data.sealed)) throw unreadable(record.id, 'its data is neither clear nor sealed');
    try {
      return { ...fields, data: open<HistoryData>(this.settings.keyring, data.sealed, sealedContext(record.id)) };
    } catch (error) {
      throw unreadable(record.id, this.settings.keyring?.keys.has(data.sealed.kid) === true
        ? 'it does not open with its key: it was changed, or moved from another call'
        : `it is sealed with key "${data.sealed.kid}", which history.encryption does not list`, error);
    }
  }
}

function unreadable(id: string, why: string, cause?: unknown): WebhookError {
  return new WebhookError('HISTORY_UNAVAILABLE', `The kept call ${id} cannot be read: ${why}.`, {
    hint: 'Keep every key that sealed kept calls listed in history.encryption.keys until those calls are past the retention.',
    cause,
  });
}
