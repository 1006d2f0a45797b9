/**
 * An HTTP client for the queue-mode benchmark's latency: `connections` keep-alive connections send POSTs until
 * `amount` calls are answered, timing every call with the monotonic clock (autocannon reports whole milliseconds; a
 * lastNode call through the queue differs from one in process by less than that).
 *
 * Without `rate` it is a closed loop: each connection sends its next call as soon as the last is answered, so the
 * latency it shows at saturation is the number of connections divided by the rate the slowest part sustains. With
 * `rate` (calls per second, over all connections) it is an open loop: call i is due at start + i / rate, and its
 * latency counts from when it was due if it had to wait for a connection the server still held (no coordinated
 * omission), else from when it was sent.
 * Prints `{ calls, seconds, latenciesUs: { p50, p90, p99 }, non2xx }` as JSON on stdout.
 */
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

const [port, path, body, connections = '10', amount = '10000', rate = '0'] = process.argv.slice(2);
const total = Number(amount);
const perSecond = Number(rate);
const agent = new Agent({ keepAlive: true, maxSockets: Number(connections) });
const latencies = new Float64Array(total);
const payload = Buffer.from(body as string);
let sent = 0;
let answered = 0;
let non2xx = 0;

function one(index: number, from: bigint): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = request({ agent, host: '127.0.0.1', port: Number(port), path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': payload.length } }, (res) => {
      res.resume();
      res.on('end', () => {
        latencies[index] = Number(process.hrtime.bigint() - from) / 1000;
        if ((res.statusCode ?? 0) >= 300) non2xx += 1;
        answered += 1;
        resolve();
      });
    });
    call.on('error', reject);
    call.end(payload);
  });
}

const started = process.hrtime.bigint();

async function loop(): Promise<void> {
  while (sent < total) {
    const index = sent;
    sent += 1;
    if (perSecond <= 0) {
      await one(index, process.hrtime.bigint());
      continue;
    }
    const due = started + BigInt(Math.round(index * 1e9 / perSecond));
    const early = Number(due - process.hrtime.bigint()) / 1e6;
    if (early > 0) {
      // On time: a timer that fires late is the client's delay, not the server's, and is not counted.
      await sleep(early);
      await one(index, process.hrtime.bigint());
    } else {
      await one(index, due);
    }
  }
}

await Promise.all(Array.from({ length: Number(connections) }, loop));
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
agent.destroy();
const sorted = [...latencies].sort((a, b) => a - b);
const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
process.stdout.write(JSON.stringify({ calls: answered, seconds, latenciesUs: { p50: at(0.5), p90: at(0.9), p99: at(0.99) }, non2xx }));
