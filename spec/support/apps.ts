/**
 * The three hosts the middleware must run in. Each builds an "existing backend" with a route of its own and mounts
 * the middleware under a base path, so every HTTP spec can run the same tests against all of them.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import connect from 'connect';
import express5 from 'express';
import express4 from 'express4';
import type { WebhookMiddleware } from '../../lib/index.js';

export const BASE = '/api/automation';

type ErrorSink = (error: unknown) => void;

export interface Host {
  name: string;
  /** Builds an app with `/api/orders` of its own and the middleware mounted at BASE. */
  build(middleware: WebhookMiddleware, onError?: ErrorSink): RequestListener;
}

function sendHostError(res: ServerResponse, error: unknown, onError?: ErrorSink): void {
  onError?.(error);
  res.statusCode = 599;
  res.setHeader('content-type', 'text/plain');
  res.end('host error handler');
}

export const HOSTS: Host[] = [
  {
    name: 'Express 5',
    build(middleware, onError) {
      const app = express5();
      app.get('/api/orders', (_req, res) => { res.json([{ id: 1 }]); });
      app.use(BASE, middleware);
      app.use((error: unknown, _req: express5.Request, res: express5.Response, _next: express5.NextFunction) => {
        sendHostError(res, error, onError);
      });
      return app;
    },
  },
  {
    name: 'Express 4',
    build(middleware, onError) {
      const app = express4();
      app.get('/api/orders', (_req, res) => { res.json([{ id: 1 }]); });
      app.use(BASE, middleware);
      app.use((error: unknown, _req: express4.Request, res: express4.Response, _next: express4.NextFunction) => {
        sendHostError(res, error, onError);
      });
      return app;
    },
  },
  {
    name: 'Connect',
    build(middleware, onError) {
      const app = connect();
      app.use('/api/orders', (_req: IncomingMessage, res: ServerResponse) => {
        res.setHeader('content-type', 'application/json');
        res.end('[{"id":1}]');
      });
      app.use(BASE, middleware);
      app.use((error: unknown, _req: IncomingMessage, res: ServerResponse, _next: unknown) => {
        sendHostError(res, error, onError);
      });
      return app as unknown as RequestListener;
    },
  },
];
