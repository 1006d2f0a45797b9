/** Writes a response plan with Node's own API only, so it runs under Express 4, Express 5, Connect and node:http. */
import { createReadStream } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { ResponsePlan } from './respond.js';

/** Resolves once the answer is on the wire, or the connection is gone. */
export function writeResponse(res: ServerResponse, plan: ResponsePlan): Promise<void> {
  if (res.headersSent || res.destroyed) return Promise.resolve();
  const ended = new Promise<void>((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
  res.statusCode = plan.status;
  for (const [name, value] of Object.entries(plan.headers)) res.setHeader(name, value);
  if (plan.file !== undefined) {
    const stream = createReadStream(plan.file);
    // Headers may be out already: cutting the connection is the only honest signal left.
    stream.once('error', () => res.destroy());
    stream.pipe(res);
  } else if (plan.body === undefined) {
    res.end();
  } else {
    res.setHeader('content-length', Buffer.byteLength(plan.body));
    res.end(plan.body);
  }
  return ended;
}
