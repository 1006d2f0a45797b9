/**
 * A NestJS 12 application on its Express platform, with Nest's default body parsers on, that mounts the webhook
 * middleware the two ways Nest users do: `app.use('/hooks', …)` in the bootstrap (main.ts), or a module's
 * `configure(consumer)` with `consumer.apply(…).forRoutes(…)`. The middleware is a provider of a WebhooksModule,
 * which closes it in a shutdown hook, and the app keeps a controller of its own.
 *
 * The specs run through tsx (esbuild), which reads the repository's tsconfig and so compiles decorator syntax as
 * TC39 decorators, which Nest's are not. The decorators are therefore applied with `Reflect.decorate`, exactly as
 * TypeScript's `experimentalDecorators` output applies them (`__decorate`, `__param`); the README's code with `@`
 * syntax is compiled with tsc in a fresh project.
 */
import 'reflect-metadata';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Body, Controller, Get, Inject, Module, Post, RequestMethod,
  type MiddlewareConsumer, type NestModule,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { WebhookMiddleware } from '../../../lib/index.js';

/** Where the webhooks are mounted in every Nest host. */
export const MOUNT = '/hooks';

export const WEBHOOKS = 'WEBHOOKS';

/** The ways a Nest app can put the middleware on a path. */
export type Mounting =
  | 'app.use'
  /** The form that works: a plain string path, which Nest mounts with Express' `app.use(path, fn)`. */
  | 'forRoutes(string)'
  /** Mounted with Express' `app.all('/hooks/*path', fn)`: the middleware sees the whole URL as its own path. */
  | 'forRoutes(RouteInfo)';

export type ShutdownHook = 'beforeApplicationShutdown' | 'onApplicationShutdown';

export interface NestHostOptions {
  mounting: Mounting;
  /** Nest's own option: its JSON and urlencoded parsers keep the bytes on `req.rawBody`. */
  rawBody?: boolean;
  /** Where the WebhooksModule closes the middleware. */
  shutdownHook?: ShutdownHook;
  closeTimeoutMs?: number;
  /** `app.useSecurityHeaders()` before the webhooks, as a Nest app sets its global headers. */
  securityHeaders?: boolean;
  /** `app.setGlobalPrefix()`: it moves the module's `forRoutes()` path, not an `app.use()` mount. */
  globalPrefix?: string;
}

export interface NestHost {
  app: NestExpressApplication;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** What the shutdown hook's `close()` resolved, once the app closed. */
  shutdown: Promise<{ completed: number; aborted: number }>;
  close(): Promise<void>;
}

/** TypeScript's `__param`: a parameter decorator applied as a class (or method) decorator. */
function param(index: number, decorator: ParameterDecorator): ClassDecorator & MethodDecorator {
  return (target: object, key?: string | symbol) => { decorator(target, key, index); };
}

function decorateMethod(target: object, name: string, decorators: MethodDecorator[]): void {
  const descriptor = Object.getOwnPropertyDescriptor(target, name);
  Object.defineProperty(target, name, Reflect.decorate(decorators, target, name, descriptor) ?? descriptor!);
}

/** A host route of its own; POST echoes the body Nest's parser read, to show Nest still parses its routes. */
class OrdersController {
  list(): { id: number }[] { return [{ id: 1 }]; }
  create(body: unknown): { received: unknown } { return { received: body }; }
}
Reflect.decorate([Controller('api/orders')], OrdersController);
decorateMethod(OrdersController.prototype, 'list', [Get()]);
decorateMethod(OrdersController.prototype, 'create', [Post(), param(0, Body())]);

/** Sets a request id on every request, as a host's own middleware does before any route. */
function requestId(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  res.setHeader('x-request-id', req.headers['x-request-id'] ?? 'nest-req-1');
  next();
}

function webhooksModule(middleware: WebhookMiddleware, options: NestHostOptions, shutdown: (result: { completed: number; aborted: number }) => void) {
  class WebhooksModule implements NestModule {
    constructor(readonly webhooks: WebhookMiddleware) {}

    configure(consumer: MiddlewareConsumer): void {
      if (options.mounting === 'forRoutes(string)') consumer.apply(requestId, this.webhooks).forRoutes(MOUNT.slice(1));
      if (options.mounting === 'forRoutes(RouteInfo)') {
        consumer.apply(requestId, this.webhooks).forRoutes({ path: `${MOUNT.slice(1)}/*path`, method: RequestMethod.ALL });
      }
    }

    async closeWebhooks(): Promise<void> {
      shutdown(await this.webhooks.close({ timeoutMs: options.closeTimeoutMs ?? 10_000 }));
    }
  }
  // Nest calls whichever hook the module has, so a spec can compare the two.
  const hook = options.shutdownHook ?? 'beforeApplicationShutdown';
  Object.defineProperty(WebhooksModule.prototype, hook, { value: WebhooksModule.prototype.closeWebhooks });
  Reflect.decorate([
    Module({ providers: [{ provide: WEBHOOKS, useValue: middleware }], exports: [WEBHOOKS] }),
    param(0, Inject(WEBHOOKS)),
  ], WebhooksModule);
  return WebhooksModule;
}

/** Builds and starts the Nest app on 127.0.0.1 with the given middleware mounted at MOUNT. */
export async function startNestHost(middleware: WebhookMiddleware, options: NestHostOptions): Promise<NestHost> {
  let settle!: (result: { completed: number; aborted: number }) => void;
  const shutdown = new Promise<{ completed: number; aborted: number }>((resolve) => { settle = resolve; });
  class AppModule {}
  Reflect.decorate([Module({ imports: [webhooksModule(middleware, options, settle)], controllers: [OrdersController] })], AppModule);

  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    ...(options.rawBody === undefined ? {} : { rawBody: options.rawBody }),
    logger: false,
  });
  if (options.securityHeaders) app.useSecurityHeaders();
  if (options.globalPrefix !== undefined) app.setGlobalPrefix(options.globalPrefix);
  if (options.mounting === 'app.use') {
    app.use(requestId);
    app.use(MOUNT, app.get<WebhookMiddleware>(WEBHOOKS));
  }
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return { app, origin: `http://127.0.0.1:${port}`, port, shutdown, close: () => (closed ??= app.close()) };
}
