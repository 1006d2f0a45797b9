/**
 * The console's options: what a host passes to createWebhookConsole(), checked and defaulted once, here, into
 * one ResolvedConsoleOptions that nothing deeper reads raw again.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookRegistry } from '../webhooks/registry/contract.js';
import type { WebhookMiddleware, WorkflowWebhooks } from '../core/types.js';
import type { WebhookHistory } from '../core/history.js';
import { safeLogger, type WebhookLogger } from '../core/logger.js';
import type { CallLog } from './calls/contract.js';
import { checkCapacity, MemoryCallLog } from './calls/memory-log.js';

/**
 * Who may use the console: resolve `true` to let the request through. `false` (or 403) answers 403
 * `CONSOLE_FORBIDDEN`, 401 answers 401 `CONSOLE_UNAUTHORIZED` (with the `challenge` option as WWW-Authenticate).
 * A hook that answered the request itself (a redirect to the host's login) is left to it. A hook that throws
 * answers 500 and reaches the logger.
 */
export type ConsoleAuthorize = (req: IncomingMessage, res: ServerResponse) => boolean | 401 | 403 | Promise<boolean | 401 | 403>;

/** The part of workflow-webhooks/queue's WebhookQueue the console uses (failed jobs, retry, a job's state). */
export interface ConsoleQueue {
  failed(options?: { start?: number; end?: number }): Promise<{
    jobId: string; state: string; attemptsMade: number; failedReason?: string; storedAt: number; finishedAt?: number;
    data: { workflowId: string; workflowName?: string; nodeName: string; method: string; callId: string; responseMode?: string };
  }[]>;
  retry(jobId: string): Promise<boolean>;
  status(jobId: string): Promise<{ jobId: string; state: string; attemptsMade: number; failedReason?: string; finishedAt?: number } | undefined>;
}

export interface WebhookConsoleOptions {
  /** Where the webhooks live: the registry the middleware serves. */
  registry: WebhookRegistry;
  /** The webhook middleware: its prefixes, its OpenAPI document and its calls (recent calls) come from it. */
  middleware: WebhookMiddleware;
  /** Required unless `public: true`: decides, for every request, whether it may see and use the console. */
  authorize?: ConsoleAuthorize;
  /**
   * Serve the console to anybody who reaches it, with no `authorize`. Only for a development server that listens on
   * a loopback address: the console shows every address, every recent call and the captured test data.
   */
  public?: boolean;
  /**
   * Signs the CSRF tokens (32 characters or more). Default: a random secret of this process; give every instance
   * the same one when several serve the console behind one address, so a page loaded from one may post to another.
   */
  csrfSecret?: string;
  /** With a 401 from `authorize`: the WWW-Authenticate challenge, e.g. `Basic realm="webhooks"`. */
  challenge?: string;
  /**
   * Where the middleware is mounted, as callers reach it: a full URL (`https://api.example.com/api/automation`) or a
   * path (`/api/automation`, completed with the origin the console was opened at). Default: the middleware's
   * `publicUrl`; one of the two is required.
   */
  webhookUrl?: string;
  /** The workflows that can listen for a test event from the console (by id); without it the console only shows. */
  workflows?: (() => Iterable<WorkflowWebhooks> | Promise<Iterable<WorkflowWebhooks>>) | ReadonlyMap<string, WorkflowWebhooks>;
  /** The longest listen window a page may ask for, in milliseconds: default 120 000 (also the default window). */
  maxListenMs?: number;
  /** Captured files larger than this (bytes, default 10 MiB) are described but not kept for download. */
  maxCapturedFileBytes?: number;
  /** Where recent calls are kept: default a MemoryCallLog of `recentCalls` (200) calls of this process. */
  callLog?: CallLog;
  /** How many calls the default MemoryCallLog keeps (default 200). */
  recentCalls?: number;
  /** Recorded in each call this instance appends, to tell instances apart (e.g. its host name). */
  instance?: string;
  /** Queue mode: failed jobs and their retry. Pass the WebhookQueue of workflow-webhooks/queue. */
  queue?: ConsoleQueue;
  /** Show the node parameter preview (default true). */
  preview?: boolean;
  /** The page's title (default `Webhooks`). */
  title?: string;
  /** Where internal failures go, with their cause. Default: the middleware's logger. */
  logger?: WebhookLogger;
  /**
   * Who is using the console, as the host knows them (`(req) => req.user?.email`): recorded as `by` on each replay it
   * starts, and on the replayed run (`run.replay.by`). Without it, or when it gives nothing, `by` is `console`.
   */
  userOf?: (req: IncomingMessage) => string | undefined;
}

export interface ResolvedConsoleOptions {
  registry: WebhookRegistry;
  middleware: WebhookMiddleware;
  authorize: ConsoleAuthorize | undefined;
  challenge: string | undefined;
  csrfSecret: Buffer;
  webhookUrl: string;
  workflows: (() => Promise<WorkflowWebhooks[]>) | undefined;
  maxListenMs: number;
  maxCapturedFileBytes: number;
  callLog: CallLog;
  /** Whether the console made the call log (and closes it). */
  ownsCallLog: boolean;
  instance: string | undefined;
  queue: ConsoleQueue | undefined;
  preview: boolean;
  title: string;
  logger: WebhookLogger;
  userOf: ((req: IncomingMessage) => string | undefined) | undefined;
  /** The middleware's kept calls (its `history` option); undefined: the History section says how to turn it on. */
  history: WebhookHistory | undefined;
}

const KNOWN = new Set(['registry', 'middleware', 'authorize', 'public', 'challenge', 'csrfSecret', 'webhookUrl', 'workflows', 'maxListenMs',
  'maxCapturedFileBytes', 'callLog', 'recentCalls', 'instance', 'queue', 'preview', 'title', 'logger', 'userOf']);

function fail(message: string): never {
  throw new TypeError(`workflow-webhooks/console: ${message}`);
}

function positive(name: string, value: unknown, fallback: number, most: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > most) fail(`${name} must be a whole number from 1 to ${most}.`);
  return value;
}

function optionalText(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') fail(`${name} must be a non-empty string.`);
  return value;
}

function csrfSecretOf(value: unknown): Buffer {
  if (value === undefined) return randomBytes(32);
  if (typeof value !== 'string' || value.length < 32) fail('csrfSecret must be a string of 32 characters or more.');
  return Buffer.from(value, 'utf8');
}

function workflowSource(value: WebhookConsoleOptions['workflows']): ResolvedConsoleOptions['workflows'] {
  if (value === undefined) return undefined;
  if (value instanceof Map) return () => Promise.resolve([...value.values()]);
  if (typeof value !== 'function') fail('workflows must be a Map of workflows by id, or a function that returns them.');
  return async () => [...await value()];
}

function webhookUrlOf(value: unknown, middleware: WebhookMiddleware): string {
  const given = value ?? middleware.settings.publicUrl;
  if (given === undefined) {
    fail("webhookUrl is required when the middleware has no publicUrl: say where the middleware is mounted, e.g. webhookUrl: '/api/automation'.");
  }
  if (typeof given !== 'string' || !(given.startsWith('/') || /^https?:\/\//.test(given))) {
    fail(`webhookUrl must be a path starting with "/" or an http(s) URL (got ${JSON.stringify(given)}).`);
  }
  return given.replace(/\/+$/, '');
}

export function resolveConsoleOptions(options: WebhookConsoleOptions): ResolvedConsoleOptions {
  if (typeof options !== 'object' || options === null) fail('createWebhookConsole() takes one options object: { registry, middleware, authorize }.');
  for (const key of Object.keys(options)) if (!KNOWN.has(key)) fail(`unknown option "${key}".`);
  const { registry, middleware, authorize } = options;
  if (typeof registry?.lookup !== 'function' || typeof registry.list !== 'function') fail('registry must be the WebhookRegistry the middleware serves.');
  if (typeof middleware !== 'function' || typeof middleware.subscribe !== 'function') fail('middleware must be the one createWebhookMiddleware() returned.');
  if (authorize !== undefined && typeof authorize !== 'function') fail('authorize must be a function (req, res) => boolean | 401 | 403.');
  if (options.public !== undefined && typeof options.public !== 'boolean') fail('public must be true or false.');
  if (authorize === undefined && options.public !== true) {
    fail('authorize is required: the console shows every webhook address and the calls they received. '
      + 'Pass authorize: (req) => …, or public: true for a development server that listens on a loopback address only.');
  }
  if (authorize !== undefined && options.public === true) fail('pass either authorize or public: true, not both.');
  if (options.callLog !== undefined && options.recentCalls !== undefined) fail('pass either callLog or recentCalls (the size of the default log), not both.');
  const callLog = options.callLog ?? new MemoryCallLog({ capacity: checkCapacity(options.recentCalls, 'recentCalls') });
  if (typeof callLog.append !== 'function' || typeof callLog.recent !== 'function' || typeof callLog.subscribe !== 'function') {
    fail('callLog must implement append(), recent() and subscribe() (MemoryCallLog, or RedisCallLog of workflow-webhooks/redis).');
  }
  const queue = options.queue;
  if (queue !== undefined && (typeof queue.failed !== 'function' || typeof queue.retry !== 'function' || typeof queue.status !== 'function')) {
    fail('queue must be the WebhookQueue of workflow-webhooks/queue (it needs failed(), retry() and status()).');
  }
  if (options.preview !== undefined && typeof options.preview !== 'boolean') fail('preview must be true or false.');
  if (options.userOf !== undefined && typeof options.userOf !== 'function') fail('userOf must be a function (req) => the user\'s name, or undefined.');
  return {
    registry,
    middleware,
    authorize,
    challenge: optionalText('challenge', options.challenge),
    csrfSecret: csrfSecretOf(options.csrfSecret),
    webhookUrl: webhookUrlOf(options.webhookUrl, middleware),
    workflows: workflowSource(options.workflows),
    maxListenMs: positive('maxListenMs', options.maxListenMs, 120_000, 24 * 60 * 60 * 1000),
    maxCapturedFileBytes: positive('maxCapturedFileBytes', options.maxCapturedFileBytes, 10 * 1024 * 1024, 1024 * 1024 * 1024),
    callLog,
    ownsCallLog: options.callLog === undefined,
    instance: optionalText('instance', options.instance),
    queue,
    preview: options.preview ?? true,
    title: optionalText('title', options.title) ?? 'Webhooks',
    logger: options.logger === undefined ? middleware.settings.logger : safeLogger(options.logger),
    userOf: options.userOf,
    history: middleware.history,
  };
}
