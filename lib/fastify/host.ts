/**
 * The parts of Fastify the plugin uses, written as structural types: the published declarations import nothing of
 * Fastify, yet a Fastify 5 instance, request and reply fit them as they are, so `app.register(webhookPlugin, …)`
 * type-checks against Fastify's own types.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookMiddleware } from '../core/types.js';

/** A Fastify request as the plugin reads it: Node's request underneath. */
export interface FastifyRequestLike {
  readonly raw: IncomingMessage;
}

/** A Fastify reply as the plugin uses it. */
export interface FastifyReplyLike {
  /** Node's response underneath. */
  readonly raw: ServerResponse;
  /** The headers set so far: Node's response's and those Fastify keeps until it sends (`reply.header()`). */
  getHeaders(): Record<string, number | string | string[] | undefined>;
  /** Tells Fastify that the response is written elsewhere: no hook, parser or handler of the route runs after it. */
  hijack(): unknown;
  /** Hands the request to the not-found handler that would have answered it had no route matched. */
  callNotFound(): void;
}

/** A route's onRequest hook, done-callback style. */
export type FastifyOnRequestLike = (request: FastifyRequestLike, reply: FastifyReplyLike, done: (error?: Error) => void) => void;

/** The Fastify instance a plugin is registered on (an encapsulated one: its routes get the `prefix` given to it). */
export interface FastifyInstanceLike {
  /** The prefix the plugin's routes get: `/hooks` for `app.register(webhookPlugin, { prefix: '/hooks', … })`. */
  readonly prefix: string;
  /** The options the Fastify app was created with. */
  readonly initialConfig: Readonly<{
    pluginTimeout?: number;
    ignoreTrailingSlash?: boolean;
    routerOptions?: { ignoreTrailingSlash?: boolean };
  }>;
  /** A route for every method the app supports. */
  all(path: string, options: { onRequest: FastifyOnRequestLike }, handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => void): unknown;
  addHook(name: 'preClose', hook: () => Promise<void>): unknown;
}

/** What `app.register(webhookPlugin, options)` takes, besides Fastify's own `prefix` (where the addresses start). */
export interface WebhookPluginOptions {
  /**
   * What `createWebhookMiddleware()` returned: the plugin serves exactly its addresses (production, test, waiting,
   * and the OpenAPI document when it has one) and closes it when the app closes.
   */
  middleware: WebhookMiddleware;
  /**
   * How long `middleware.close()` lets runs under way finish when the app closes (Fastify's `preClose`), in ms.
   * Default: 10 000, held 5 000 below the app's `pluginTimeout` (Fastify's limit for each `preClose` hook; 10 000 by
   * default, so 5 000); a longer value needs a larger `pluginTimeout`.
   */
  closeTimeoutMs?: number;
  /** Fastify's own register option: the path the addresses start at (`/hooks`); none serves them from the root. */
  prefix?: string;
}

/** A Fastify plugin, `(instance, options) => Promise<void>`, with the marks Fastify reads off a plugin function. */
export interface WebhookPlugin {
  (instance: FastifyInstanceLike, options: WebhookPluginOptions): Promise<void>;
}
