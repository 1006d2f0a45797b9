/**
 * The middleware's waiting options (`waitingSecret`, `waitingPrefix`), checked once at the factory, and the shared
 * settings every run and resume call uses: the secret, the store the registry lends, and this process's waiters.
 */
import { randomUUID } from 'node:crypto';
import { WebhookError } from '../../core/errors.js';
import { fail, prefix } from '../../core/option-checks.js';
import type { WebhookLogger } from '../../core/logger.js';
import type { PayloadLimits } from '../body/limits.js';
import type { RequestLimits } from '../request/limits.js';
import type { WebhookRegistry } from '../registry/contract.js';
import type { WebhookEventListener } from '../../core/events.js';
import type { LocalWaiter } from './run-waits.js';

export interface WaitingMiddlewareOptions {
  /**
   * The secret that signs resume addresses (`run.resumeUrl`): at least 32 characters (or bytes), the same on every
   * instance. Without it, `run.waitForCall()` and `run.suspend()` fail with `WAIT_NOT_CONFIGURED`.
   */
  waitingSecret?: string | Buffer;
  /** First path segment of resume addresses. Default `webhook-waiting`. */
  waitingPrefix?: string;
}

/** The part of a registry that keeps wait entries. */
export type WaitStore = Required<Pick<WebhookRegistry, 'putWait' | 'getWait' | 'claimWait'>>;

export interface WaitingSettings {
  secret: Buffer | undefined;
  prefix: string;
  store: WaitStore | undefined;
  limits: Readonly<PayloadLimits & RequestLimits>;
  /** In-run waits cannot outlive the run. */
  maxRunMs: number;
  /** This process, as the holder of in-run waits. */
  holder: string;
  /** In-run waits of this process, by wait id. */
  local: Map<string, LocalWaiter>;
  logger: WebhookLogger;
  onEvent: WebhookEventListener | undefined;
}

function secretOf(value: unknown): Buffer | undefined {
  if (value === undefined) return undefined;
  const secret = typeof value === 'string' ? Buffer.from(value) : Buffer.isBuffer(value) ? value : undefined;
  if (secret === undefined || secret.length < 32) fail('waitingSecret', 'a string or Buffer of at least 32 characters, the same on every instance', typeof value === 'string' ? `${value.length} characters` : value);
  return Buffer.from(secret);
}

function storeOf(registry: WebhookRegistry): WaitStore | undefined {
  const { putWait, getWait, claimWait } = registry;
  if (putWait === undefined || getWait === undefined || claimWait === undefined) return undefined;
  return { putWait: putWait.bind(registry), getWait: getWait.bind(registry), claimWait: claimWait.bind(registry) };
}

export interface ResolvedWaitingOptions {
  secret: Buffer | undefined;
  prefix: string;
}

/** The options checked at the factory; the prefix must differ from the other prefixes (`taken`). */
export function resolveWaitingOptions(options: WaitingMiddlewareOptions, taken: readonly string[] = []): ResolvedWaitingOptions {
  const waitingPrefix = prefix('waitingPrefix', options.waitingPrefix, 'webhook-waiting');
  if (taken.some((other) => other.toLowerCase() === waitingPrefix.toLowerCase())) {
    fail('waitingPrefix', 'different from productionPrefix and testPrefix', waitingPrefix);
  }
  return Object.freeze({ secret: secretOf(options.waitingSecret), prefix: waitingPrefix });
}

/** The settings runs and resume calls share, from the checked options and the registry that keeps the entries. */
export function waitingSettings(
  options: ResolvedWaitingOptions,
  registry: WebhookRegistry,
  shared: Pick<WaitingSettings, 'limits' | 'maxRunMs' | 'logger' | 'onEvent'>,
): WaitingSettings {
  return { ...options, store: storeOf(registry), holder: randomUUID(), local: new Map(), ...shared };
}

export function resolveWaiting(
  options: WaitingMiddlewareOptions,
  registry: WebhookRegistry,
  shared: Pick<WaitingSettings, 'limits' | 'maxRunMs' | 'logger' | 'onEvent'>,
): WaitingSettings {
  return waitingSettings(resolveWaitingOptions(options), registry, shared);
}

/** Why a run cannot wait here, or undefined when it can. */
export function notConfigured(settings: WaitingSettings | undefined): WebhookError | undefined {
  if (settings?.secret === undefined) {
    return new WebhookError('WAIT_NOT_CONFIGURED', 'This run cannot wait for a call: the middleware has no waitingSecret.', {
      hint: 'Pass createWebhookMiddleware(registry, executor, { waitingSecret }) a secret of at least 32 characters, the same on every instance.',
    });
  }
  if (settings.store === undefined) {
    return new WebhookError('WAIT_NOT_CONFIGURED', 'This run cannot wait for a call: the registry keeps no waits (putWait, getWait, claimWait).', {
      hint: 'Use MemoryWebhookRegistry or RedisWebhookRegistry, or give your own registry those methods.',
    });
  }
  return undefined;
}
