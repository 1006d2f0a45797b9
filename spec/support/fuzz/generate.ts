/**
 * Hostile HTTP requests, generated from a seed (the same seed gives the same requests): random methods, paths with
 * `..`, encoded slashes and NUL bytes, malformed JSON, truncated and mixed multipart, huge and many headers,
 * prototype-pollution keys, invalid UTF-8, wrong content lengths, broken chunking, bad credentials and origins, and
 * resume addresses with malformed ids, wrong, missing and doubled signatures and other suffixes.
 */
import { signWait } from '../../../lib/webhooks/waiting/address.js';

export interface FuzzRequest {
  id: string;
  category: string;
  bytes: Buffer;
  /** The client stops sending before the announced body ends: the server may only close. */
  cutShort: boolean;
  /** A resume address with its right signature: the only kind of request that may resume a waiting run. */
  rightlySigned: boolean;
}

/** mulberry32: small, fast, seedable. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;

const METHODS = ['GET', 'POST', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FOO', 'post', 'GET\0'];
const PATHS = [
  '/hooks/webhook/json', '/hooks/webhook/form', '/hooks/webhook/upload', '/hooks/webhook/users/42', '/hooks/webhook/auth',
  '/hooks/webhook/cors', '/hooks/webhook/any', '/hooks/webhook-test/json', '/hooks/webhook/../webhook/json', '/hooks/webhook/%2e%2e/json',
  '/hooks/webhook/users%2F42', '/hooks/webhook/users/%00', '/hooks/webhook/%zz', '/hooks/webhook/json//', '/hooks/webhook/users/%E0%A4%A',
  '/hooks/webhook/users/\u00e9', '/hooks/webhook', '/hooks/', '/', '/hooks/webhook/users/%ff%fe', `/hooks/webhook/${'a/'.repeat(300)}`,
  `/hooks/webhook/json?${'q=1&'.repeat(2500)}`, '/hooks/webhook/json?__proto__[admin]=1&constructor[prototype][admin]=1', '*',
];
/** Waits the fuzz server holds (suspended runs): their ids, signed with FUZZ_SECRET; the second takes a suffix. */
export const FUZZ_SECRET = 'fuzz-waiting-secret-of-32-characters-or-more';
export const FUZZ_WAITS = ['AAAAAAAAAAAAAAAAAAAAA0', 'AAAAAAAAAAAAAAAAAAAAA1', 'AAAAAAAAAAAAAAAAAAAAA2'];
const SIGNED = FUZZ_WAITS.map((waitId) => ({ waitId, signature: signWait(Buffer.from(FUZZ_SECRET), waitId, '') }));
/** The second wait's address with its suffix, signed for it; its suffix-less signature must open nothing. */
const APPROVE_SIGNATURE = signWait(Buffer.from(FUZZ_SECRET), FUZZ_WAITS[1] as string, 'approve');
const waiting = (rest: string): string => `/hooks/webhook-waiting/${rest}`;
/** Resume addresses with their right signature: the only ones that may resume a run. */
const RIGHTLY_SIGNED = new Set([
  ...SIGNED.map(({ waitId, signature }) => waiting(`${waitId}?signature=${signature}`)),
  waiting(`${SIGNED[1]?.waitId}/approve?signature=${APPROVE_SIGNATURE}`),
]);
const WAITING_PATHS = [
  ...RIGHTLY_SIGNED,
  ...SIGNED.flatMap(({ waitId, signature }) => [
    waiting(waitId), waiting(`${waitId}?signature=${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`),
    waiting(`${waitId}?signature=${signature}&signature=${signature}`), waiting(`${waitId}/approve/%2e%2e?signature=${signature}`),
    waiting(`${waitId}/%zz?signature=${signature}`), waiting(`${waitId.toLowerCase()}?signature=${signature}`),
    waiting(`${waitId}?signature=${signature.toLowerCase()}`), waiting(`${waitId}/reject?signature=${signature}`),
    waiting(`${waitId}/approve?signature=${signature}`),
  ]),
  waiting(`${SIGNED[1]?.waitId}/reject?signature=${APPROVE_SIGNATURE}`),
  waiting('not-an-id?signature=x'), waiting(''), waiting(`${'A'.repeat(4000)}?signature=${'B'.repeat(43)}`), waiting('%00?signature=a'),
];
const TYPES = ['application/json', 'multipart/form-data; boundary=B', 'multipart/form-data; boundary=B', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=B', 'multipart/form-data', 'text/plain',
  'application/xml', 'application/octet-stream', 'application/vnd.api+json; charset=klingon', '', 'image/png', 'multipart/mixed; boundary=B'];

/** A well-formed multipart body with a file of `size` bytes (to disk past the fuzz server's memory threshold). */
function upload(size: number): Buffer {
  return Buffer.concat([
    Buffer.from('--B\r\nContent-Disposition: form-data; name="title"\r\n\r\nreport\r\n--B\r\nContent-Disposition: form-data; name="doc"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n'),
    Buffer.alloc(size, 0x62),
    Buffer.from('\r\n--B--\r\n'),
  ]);
}

function body(rand: Rand): Buffer {
  switch (Math.floor(rand() * 14)) {
    case 12: return upload(Math.floor(rand() * 40_000));
    case 13: return upload(60_000 + Math.floor(rand() * 20_000));
    case 0: return Buffer.from('{"a":');
    case 1: return Buffer.from('{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}');
    case 2: return Buffer.from('a=1&a=2&__proto__[x]=1&%zz=%E0%A4%A&b');
    case 3: return Buffer.from('--B\r\nContent-Disposition: form-data; name="f"; filename="x.bin"\r\n\r\nhalf a fi');
    case 4: return Buffer.from('--B\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\nv\r\n--B\r\nContent-Type: text/plain\r\n\r\nno disposition\r\n--B--\r\n');
    case 5: return Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]);
    case 6: return Buffer.from(`<a>${'<b>'.repeat(200)}</a>`);
    case 7: return Buffer.from(JSON.stringify({ deep: JSON.parse(`${'['.repeat(500)}${']'.repeat(500)}`) as unknown }));
    case 8: return Buffer.alloc(Math.floor(rand() * 70_000), 0x41);
    case 9: return Buffer.from('');
    case 10: return Buffer.from('<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><l>&b;&b;&b;</l>');
    default: return Buffer.from(JSON.stringify({ ok: true, n: rand() }));
  }
}

function extraHeaders(rand: Rand): string[] {
  switch (Math.floor(rand() * 10)) {
    case 0: return [`X-Big: ${'x'.repeat(Math.floor(rand() * 20_000))}`];
    case 1: return Array.from({ length: 150 }, (_, i) => `X-H${i}: v`);
    case 2: return [`Authorization: Basic ${pick(rand, ['YWRhOmxvdmVsYWNl', '!!!', 'YWRh', ''])}`];
    case 3: return [`Authorization: Bearer ${pick(rand, ['a.b.c', 'eyJhbGciOiJub25lIn0.e30.', ''])}`];
    case 4: return [`Origin: ${pick(rand, ['https://app.example.com', 'https://evil.example', 'null'])}`, 'Access-Control-Request-Method: POST'];
    case 5: return ['Content-Encoding: gzip'];
    case 6: return ['X-Forwarded-For: 203.0.113.7, not-an-ip'];
    case 7: return ['User-Agent: Googlebot/2.1', 'Cookie: a=b'];
    case 8: return ['Header\u0000Bad: x'];
    default: return [];
  }
}

export function generateRequest(rand: Rand, index: number): FuzzRequest {
  const id = `f${index}`;
  const method = pick(rand, METHODS);
  const path = rand() < 0.25 ? pick(rand, WAITING_PATHS) : pick(rand, PATHS);
  const type = pick(rand, TYPES);
  const payload = body(rand);
  const headers = [`Host: 127.0.0.1`, `X-Fuzz-Id: ${id}`, 'Connection: close', ...extraHeaders(rand)];
  if (type !== '') headers.push(`Content-Type: ${type}`);
  let cutShort = false;
  let framed: Buffer = payload;
  const framing = Math.floor(rand() * 10);
  if (framing === 0) {
    headers.push(`Content-Length: ${payload.length + 1 + Math.floor(rand() * 100)}`);
    cutShort = true;
  } else if (framing === 1) {
    headers.push(`Content-Length: ${Math.max(0, payload.length - 3)}`);
  } else if (framing === 2) {
    headers.push('Transfer-Encoding: chunked');
    const size = pick(rand, [payload.length.toString(16), 'zz', '-1', '1000000']);
    // A chunk announced larger than what follows: the client stops before the body ends.
    cutShort = size === '1000000';
    framed = Buffer.concat([Buffer.from(`${size}\r\n`), payload, Buffer.from('\r\n0\r\n\r\n')]);
  } else if (framing === 3) {
    headers.push(`Content-Length: ${payload.length}`, 'Transfer-Encoding: chunked');
  } else {
    headers.push(`Content-Length: ${payload.length}`);
  }
  const head = `${method} ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`;
  return {
    id, category: `${method.trim()} ${path.slice(0, 40)}`, bytes: Buffer.concat([Buffer.from(head, 'latin1'), framed]), cutShort,
    rightlySigned: RIGHTLY_SIGNED.has(path),
  };
}
