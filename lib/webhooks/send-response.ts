/** Writes a response plan with Node's own API only, so it runs under Express 4, Express 5, Connect and node:http. */
import { createReadStream } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { ResponsePlan } from './respond.js';

export function writeResponse(res: ServerResponse, plan: ResponsePlan): void {
  res.statusCode = plan.status;
  for (const [name, value] of Object.entries(plan.headers)) res.setHeader(name, value);
  if (plan.file !== undefined) {
    const stream = createReadStream(plan.file);
    stream.once('error', () => res.destroy());
    stream.pipe(res);
    return;
  }
  if (plan.body === undefined) {
    res.end();
    return;
  }
  res.setHeader('content-length', Buffer.byteLength(plan.body));
  res.end(plan.body);
}
