/** Writes a response plan with Node's own API only, so it runs under Express 4, Express 5, Connect and node:http. */
import { createReadStream } from 'node:fs';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { ResponsePlan } from './build-plan.js';
import { joinsHostHeader, mergeHostHeaders } from './host-headers.js';

/** Reasons for statuses outside Node's list that this middleware answers with. */
const EXTRA_STATUS_TEXT: Readonly<Record<number, string>> = { 524: 'A Timeout Occurred' };

/**
 * Writes the plan in one `writeHead` + `end`; headers the host set earlier are kept (Vary and a CSP are joined with
 * the host's, see host-headers.ts). For a streamed file, resolves once the file is on the wire or the connection is
 * gone, and its descriptor closed, so the file is not removed under the stream; everything else is written
 * synchronously and gives undefined.
 */
export function writeResponse(res: ServerResponse, plan: ResponsePlan): Promise<void> | undefined {
  if (res.headersSent || res.destroyed) return undefined;
  if (plan.ready !== undefined) {
    res.writeHead(plan.status, plan.ready as Record<string, string | string[]>);
    res.end(plan.body);
    return undefined;
  }
  const headers = mergeHostHeaders(res, plan.headers);
  // Node names only the registered statuses; 524 would go out as "unknown".
  if (STATUS_CODES[plan.status] === undefined) res.statusMessage = EXTRA_STATUS_TEXT[plan.status] ?? 'Error';
  if (plan.file !== undefined) {
    res.writeHead(plan.status, headers);
    const file = plan.file;
    // pipeline, not pipe: a caller that hangs up mid-file must close the file at once, not leave it open for good.
    // A read error destroys the response: headers are out already, cutting the connection is the only honest signal.
    return new Promise<void>((resolve) => {
      pipeline(createReadStream(file), res, () => resolve());
    });
  }
  if (plan.body === undefined) {
    res.writeHead(plan.status, headers);
    res.end();
    return undefined;
  }
  res.writeHead(plan.status, withLength(headers, plan.body));
  res.end(plan.body);
  return undefined;
}

/** The headers with the body's Content-Length. */
function withLength(headers: Record<string, string | string[]>, body: string | Buffer): Record<string, string | string[]> {
  headers['content-length'] = String(Buffer.byteLength(body));
  return headers;
}

/**
 * Makes `plan.ready` for a plan many calls share: its headers with Content-Length, frozen, unless one of them must
 * join a host's header (then every call merges them as usual), or the status needs a reason Node does not know.
 */
export function prepareShared(plan: ResponsePlan): void {
  if (plan.file !== undefined || STATUS_CODES[plan.status] === undefined) return;
  for (const name in plan.headers) if (joinsHostHeader(name)) return;
  const ready: Record<string, string | string[]> = { ...plan.headers };
  plan.ready = Object.freeze(plan.body === undefined ? ready : withLength(ready, plan.body));
}
