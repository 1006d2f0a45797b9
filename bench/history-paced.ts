/**
 * An open-loop client for the history benchmark's steady pace: call i is due at start + i / rate, spread evenly
 * (autocannon's `-R` sends each second's calls in one burst at its start, which is not a steady 1 000 a second),
 * over `connections` keep-alive connections. A call that waited for a connection counts its latency from when it was
 * due (no coordinated omission). A failed call is counted, not thrown: the crash runs kill the server on purpose.
 */
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { BODY, PATH } from './history-servers.js';

export interface Paced { answered2xx: number; failed: number; perSecond: number; p50: number; p99: number }

export async function paced(port: number, seconds: number, rate: number, connections = 10): Promise<Paced> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const payload = Buffer.from(BODY);
  const total = Math.round(seconds * rate);
  const latencies: number[] = [];
  let next = 0;
  let answered2xx = 0;
  let failed = 0;
  const started = performance.now();
  const one = (from: number): Promise<void> => new Promise((resolve) => {
    const call = request({ agent, host: '127.0.0.1', port, path: PATH, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': payload.length } }, (res) => {
      res.resume();
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300) {
          answered2xx += 1;
          latencies.push(performance.now() - from);
        } else failed += 1;
        resolve();
      });
      res.on('error', () => { failed += 1; resolve(); });
    });
    call.on('error', () => { failed += 1; resolve(); });
    call.end(payload);
  });
  const loop = async (): Promise<void> => {
    while (next < total) {
      const due = started + (next * 1000) / rate;
      next += 1;
      const early = due - performance.now();
      if (early > 0) {
        await sleep(early);
        await one(performance.now());
      } else await one(due);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { answered2xx, failed, perSecond: answered2xx / elapsed, p50: at(0.5), p99: at(0.99) };
}
