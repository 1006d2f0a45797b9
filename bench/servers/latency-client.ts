/**
 * A closed-loop HTTP client for the queue-mode benchmark's latency: `connections` keep-alive connections each send
 * one POST after another until `amount` calls are answered, timing every call with the monotonic clock. autocannon
 * reports whole milliseconds; a lastNode call through the queue differs from one in process by less than that.
 * Prints `{ calls, seconds, latenciesUs: { p50, p90, p99 }, non2xx }` as JSON on stdout.
 */
import { Agent, request } from 'node:http';

const [port, path, body, connections = '10', amount = '10000'] = process.argv.slice(2);
const total = Number(amount);
const agent = new Agent({ keepAlive: true, maxSockets: Number(connections) });
const latencies = new Float64Array(total);
const payload = Buffer.from(body as string);
let sent = 0;
let answered = 0;
let non2xx = 0;

function one(): Promise<void> {
  const index = sent;
  sent += 1;
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const call = request({ agent, host: '127.0.0.1', port: Number(port), path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': payload.length } }, (res) => {
      res.resume();
      res.on('end', () => {
        latencies[index] = Number(process.hrtime.bigint() - started) / 1000;
        if ((res.statusCode ?? 0) >= 300) non2xx += 1;
        answered += 1;
        resolve();
      });
    });
    call.on('error', reject);
    call.end(payload);
  });
}

async function loop(): Promise<void> {
  while (sent < total) await one();
}

const started = process.hrtime.bigint();
await Promise.all(Array.from({ length: Number(connections) }, loop));
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
agent.destroy();
const sorted = [...latencies].sort((a, b) => a - b);
const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
process.stdout.write(JSON.stringify({ calls: answered, seconds, latenciesUs: { p50: at(0.5), p90: at(0.9), p99: at(0.99) }, non2xx }));
