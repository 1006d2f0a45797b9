/**
 * The middleware as a host and its tools see it: a structural function type (no express types leak into the
 * published .d.ts), its shutdown, the settings it was created with, and its event subscription.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookEventListener } from './events.js';
import type { WebhookHistory } from './history.js';
import type { WebhookLogger } from './logger.js';
import type { ResolvedRateLimitPolicy } from './rate-limits.js';

/** Structural middleware type: assignable to `app.use()` of Express 4, Express 5 and Connect. */
export interface WebhookMiddleware {
  (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void;
  /**
   * Shuts down: new calls get 503 `SHUTTING_DOWN` (`Retry-After`, `Connection: close`); runs under way get `timeoutMs`
   * (default 10 000) to settle, then the rest are told to stop (`run.signal`), their temp files go, and callers still
   * waiting get 503 `SHUTTING_DOWN` at once (a late result is dropped). Resolves once those answers are written.
   */
  close(options?: { timeoutMs?: number }): Promise<WebhookShutdownResult>;
  /** What the middleware was created with, for tools that show its addresses (the console). */
  readonly settings: WebhookMiddlewareSettings;
  /**
   * Hears every call's events from now on, besides the `onEvent` option (a listener that throws is ignored);
   * returns the unsubscribe. While nobody listens, calls build no events at all.
   */
  subscribe(listener: WebhookEventListener): () => void;
  /** Finds and replays kept calls; undefined without the `history` option. */
  readonly history?: WebhookHistory | undefined;
}

/** A middleware's settings as tools read them; all resolved, with defaults applied. */
export interface WebhookMiddlewareSettings {
  readonly productionPrefix: string;
  readonly testPrefix: string;
  readonly waitingPrefix: string;
  /** Whether resume addresses are served (`waitingSecret` is set). */
  readonly waiting: boolean;
  readonly publicUrl: string | undefined;
  /** What the middleware does with an error: answer it itself (`respond`) or hand it to the host's `next(err)`. */
  readonly errorHandling: 'respond' | 'next';
  /** The OpenAPI document's path below the mount (`/openapi.json`), when the middleware serves one. */
  readonly openApiPath: string | undefined;
  /** How long a lastNode or responseNode caller may wait, in ms (`responseTimeoutMs`); 0 or Infinity: no deadline. */
  readonly responseTimeoutMs: number;
  /** The rate limit of addresses whose workflow sets none (`rateLimit.default`); undefined: none. */
  readonly rateLimit: readonly ResolvedRateLimitPolicy[] | undefined;
  /**
   * The host's credentials resolver (the `credentials` option), so that a tool can name what a node's credential is
   * (a signature's scheme) the way the middleware resolves it; never for its secrets.
   */
  readonly credentials: ((request: { workflowId: string; nodeName: string; authentication: 'basicAuth' | 'headerAuth' | 'jwtAuth' | 'signatureAuth'; credentials: unknown }) => unknown) | undefined;
  /** The host's logger (or the default one), so that tools report where the middleware does. */
  readonly logger: WebhookLogger;
}

export interface WebhookShutdownResult {
  /** Calls that finished on their own before the timeout. */
  completed: number;
  /** Calls whose runs were told to stop when the timeout passed. */
  aborted: number;
}
