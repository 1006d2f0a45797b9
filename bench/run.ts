/**
 * `npm run bench [-- <name>]`: runs the benchmarks and prints Markdown tables. Never part of `npm test`.
 * Names: speed (the side-by-side table: the limit and Express's ceiling, this middleware on node:http, in Express and
 * in Fastify, older builds of it, then its per-call allocation and GC), alloc (only the latter), json, scale, form, multipart
 * (HTTP, autocannon), signed (signature verification), registry, definitions, upload (1 GiB), redis (starts its own
 * redis-server), topologies (the Redis registry on one server, a Redis Cluster and Sentinel), queue (queue mode
 * against in process, pinned to cores, then queue mode on Redis and on PostgreSQL, then the stages of a lastNode
 * call; starts its own redis-server, PostgreSQL and workers), queue-stores (only Redis against PostgreSQL, then on
 * that PostgreSQL the library against BullMQ driven directly and graphile-worker), stages (only the stages),
 * telemetry (the middleware with OpenTelemetry, without
 * and with an SDK, and with the console mounted), replicas (queue mode with replica acknowledgement against without;
 * starts a primary and a replica), ratelimit (CPU per call of an address without and with a rate limit, memory and
 * Redis and PostgreSQL registries; starts its own servers), stores (a registry change on Redis and on PostgreSQL), parse (what parsing one JSON or XML body costs the event loop),
 * schemas (what checking a body against a payload schema costs per call, against the compiler of b38d9c9, and RE2 against V8's RegExp),
 * history (what keeping call history costs a call on each store, PostgreSQL's statements at 1 000 calls/s, what a crash loses).
 */
import { cpus, totalmem } from 'node:os';
import { benchDefinitions } from './definitions.js';
import { benchHistory } from './history.js';
import { benchHttp } from './http.js';
import { benchParseCost } from './parse-cost.js';
import { benchQueue } from './queue-mode.js';
import { benchQueueStages } from './queue-stages.js';
import { benchQueueStores } from './queue-stores.js';
import { benchRateLimit } from './rate-limit.js';
import { benchReplicas } from './queue-replicas.js';
import { benchRedis } from './redis.js';
import { benchRedisTopologies } from './redis-topologies.js';
import { benchRegistryLookup } from './registry-lookup.js';
import { benchSchemaCost } from './schema-cost.js';
import { benchSigned } from './signed.js';
import { benchSpeed, speedKinds } from './speed.js';
import { benchStoreChanges } from './store-changes.js';
import { benchTelemetry } from './telemetry.js';
import { benchUpload } from './upload.js';

const only = process.argv[2];
const settings = { seconds: Number(process.env.BENCH_SECONDS ?? 5), rounds: Number(process.env.BENCH_ROUNDS ?? 3), connections: 50 };
const wants = (name: string): boolean => only === undefined || only === name;
const write = (text: string): boolean => process.stdout.write(text);

write(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB; ` +
  `autocannon ${settings.connections} connections, ${settings.seconds} s × ${settings.rounds} rounds per contender\n\n`);
if (wants('speed') || only === 'alloc') {
  const kinds = speedKinds(process.env.BENCH_KINDS);
  const throughput = only === 'alloc' ? undefined
    : { seconds: Number(process.env.BENCH_SECONDS ?? 10), warmup: Number(process.env.BENCH_WARMUP ?? 3), rounds: settings.rounds, connections: 10, kinds };
  const allocation = process.env.BENCH_ALLOC === '0' && only !== 'alloc' ? undefined
    : { calls: Number(process.env.BENCH_ALLOC_CALLS ?? 100_000), warmup: Number(process.env.BENCH_ALLOC_WARMUP ?? 20_000), connections: 10 };
  write(`## Side by side: the limit, Express, Fastify, older builds and this middleware\n\n${await benchSpeed({ throughput, allocation, kinds, contenders: process.env.BENCH_CONTENDERS })}\n\n`);
}
if (wants('telemetry')) {
  const telemetry = { seconds: Number(process.env.BENCH_SECONDS ?? 10), warmup: Number(process.env.BENCH_WARMUP ?? 3), rounds: Number(process.env.BENCH_ROUNDS ?? 5), connections: 10 };
  write(`## OpenTelemetry and the console: their cost beside the plain middleware\n\n${await benchTelemetry(telemetry)}\n\n`);
}
if (only === undefined || ['json', 'scale', 'form', 'multipart'].includes(only)) write(`## HTTP\n\n${await benchHttp(settings, only)}\n\n`);
if (wants('signed')) write(`## Signed webhooks (one server, the same call unsigned and signed)\n\n${await benchSigned(settings)}\n\n`);
if (wants('parse')) write(`## Parsing cost on the event loop (in process)\n\n${benchParseCost()}\n\n`);
if (wants('schemas')) write(`## Payload schemas: cost per validation and RE2 against V8 (in process)\n\n${await benchSchemaCost()}\n\n`);
if (wants('registry')) write(`## Registry look-up (in process)\n\n${await benchRegistryLookup()}\n\n`);
if (wants('definitions')) write(`## Definition validation (in process)\n\n${await benchDefinitions()}\n\n`);
if (wants('upload')) write(`## 1 GiB multipart upload (server in its own process)\n\n${await benchUpload()}\n\n`);
if (wants('redis')) write(`## Redis registry (redis-server started by the benchmark)\n\n${await benchRedis(settings)}\n\n`);
if (wants('topologies')) write(`## Redis registry on one redis-server, a Redis Cluster and Sentinel (all started by the benchmark)\n\n${await benchRedisTopologies()}\n\n`);
if (wants('queue')) write(`## Queue mode (redis-server, workers and every web instance in processes of their own, pinned to cores)\n\n${await benchQueue(settings)}\n\n`);
if (wants('queue') || only === 'queue-stores') write(`## Queue mode on each store: Redis and PostgreSQL (servers, web instances and workers in processes of their own)\n\n${await benchQueueStores(settings)}\n\n`);
if (wants('queue') || only === 'stages') write(`## Queue mode: the stages of a lastNode call, at one connection and at 10\n\n${await benchQueueStages(settings.rounds)}\n\n`);
if (wants('stores')) write(`## A registry change on each shared store (redis-server and PostgreSQL started by the benchmark)\n\n${await benchStoreChanges(settings.rounds)}\n\n`);
if (wants('ratelimit')) write(`## Rate limits: CPU per call (redis-server started by the benchmark)\n\n${await benchRateLimit(settings)}\n\n`);
if (wants('replicas')) write(`## Queue mode with replica acknowledgement (a primary and one replica on loopback)\n\n${await benchReplicas(settings)}\n\n`);
if (wants('history')) write(`## Call history: its cost per call, PostgreSQL statements at 1 000 calls/s, and what a crash loses\n\n${await benchHistory()}\n\n`);
