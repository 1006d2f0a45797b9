/**
 * The cost of verifying a signature: one server (the middleware on node:http, where nothing hides its cost) takes
 * the same small JSON call unsigned and signed (GitHub's scheme: HMAC-SHA256 over the body), alternating rounds, so
 * the difference is the guard's work: reading the headers, buffering the body, one HMAC, a constant-time compare.
 */
import { createHmac } from 'node:crypto';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { autocannon, median, stop, type BenchSettings, type Load, type Sample } from './http.js';

const SERVER = fileURLToPath(new URL('./servers/http-server.ts', import.meta.url));
const SECRET = 'bench-signing-secret';
const BODY = '{"action":"opened","number":1347,"repository":{"full_name":"octo/hello"},"sender":{"login":"ada"}}';

export async function benchSigned(settings: BenchSettings): Promise<string> {
  const child = fork(SERVER, ['mwnode-json'], { execArgv: ['--expose-gc', '--conditions=workflow-webhooks-source', '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`server exited with ${String(code)}`)));
  });
  const signature = `sha256=${createHmac('sha256', SECRET).update(BODY).digest('hex')}`;
  const loads: [string, Load][] = [
    ['unsigned (authentication none)', { path: '/webhook/hook', headers: { 'content-type': 'application/json' }, body: BODY }],
    ['signed (signatureAuth, github)', { path: '/webhook/signed', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body: BODY }],
  ];
  const samples = new Map<string, Sample[]>(loads.map(([label]) => [label, []]));
  try {
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const [label, load] of loads) samples.get(label)?.push(await autocannon(port, load, settings));
    }
  } finally {
    await stop(child);
  }
  const rows = loads.map(([label]) => {
    const list = samples.get(label) ?? [];
    return { label, requests: median(list.map((s) => s.requests)), p50: median(list.map((s) => s.p50)) };
  });
  const base = rows[0] as (typeof rows)[number];
  const lines = ['| call | req/s (median) | p50 ms | µs per call | ratio to unsigned |', '|---|---|---|---|---|'];
  for (const row of rows) {
    lines.push(`| ${row.label} | ${Math.round(row.requests).toLocaleString('en')} | ${row.p50.toFixed(1)} | ${(1e6 / row.requests).toFixed(0)} | ${(row.requests / base.requests).toFixed(2)} |`);
  }
  return lines.join('\n');
}
