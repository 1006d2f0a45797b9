/**
 * Headers written into a response the host may have prepared already (helmet's policies, a request id, its own
 * Vary, a session cookie): ours are added to the host's, never put in their place. `Vary` is appended to; a
 * Content-Security-Policy of ours joins the host's policy, so the stricter of both applies; a workflow's cookies go
 * out beside the host's; every other header the host set stays as is unless the answer must say otherwise (its
 * own Content-Type, Content-Length).
 */
import type { ServerResponse } from 'node:http';
import vary from 'vary';

/** Sets one header of ours next to what the host set. */
export function addHeader(res: ServerResponse, name: string, value: string): void {
  if (name === 'vary') {
    vary(res, value);
    return;
  }
  if (name === 'content-security-policy') {
    const host = res.getHeader(name);
    if (typeof host === 'string' && host.trim() !== '') {
      // Two policies in one header: a browser enforces both, so the host's rules and our sandbox both hold.
      if (!host.split(/[;,]/).some((directive) => directive.trim() === value)) res.setHeader(name, `${host}, ${value}`);
      return;
    }
  }
  res.setHeader(name, value);
}

/** A workflow's cookies after the host's: writeHead would otherwise replace the host's Set-Cookie with ours. */
function addCookies(res: ServerResponse, value: string | string[]): void {
  const host = res.getHeader('set-cookie');
  const earlier = host === undefined ? [] : Array.isArray(host) ? host : [String(host)];
  res.setHeader('set-cookie', [...earlier, ...[value].flat()]);
}

/** Whether a header of ours must join the host's header of that name rather than go out as it is. */
export function joinsHostHeader(name: string): boolean {
  return name === 'set-cookie' || name === 'vary' || name === 'content-security-policy';
}

/** Adds the headers that must join the host's (Vary, CSP, Set-Cookie) and returns the rest for writeHead. */
export function mergeHostHeaders(res: ServerResponse, headers: Record<string, string | string[]>): Record<string, string | string[]> {
  const rest: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name] as string | string[];
    if (!joinsHostHeader(name)) rest[name] = value;
    else if (name === 'set-cookie') addCookies(res, value);
    else if (typeof value === 'string') addHeader(res, name, value);
    else rest[name] = value;
  }
  return rest;
}
