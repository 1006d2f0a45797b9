/**
 * `npm run bench -- redis`: starts a private redis-server (free loopback port, persistence off), runs the Redis
 * registry benchmarks against it (HTTP throughput, propagation, activations, cold start) and stops it, whatever
 * happens. REDIS_* variables shorten the registry part; BENCH_SECONDS and BENCH_ROUNDS the HTTP part.
 */
import type { BenchSettings } from './http.js';
import { benchRedisHttp } from './redis-http.js';
import { benchRedisRegistry } from './redis-registry.js';
import { startRedis } from './redis-server.js';

const setting = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

export async function benchRedis(settings: BenchSettings): Promise<string> {
  const redis = await startRedis();
  try {
    const http = await benchRedisHttp(settings, redis.url);
    const registry = await benchRedisRegistry(redis.url, {
      cycles: setting('REDIS_CYCLES', 300),
      sequential: setting('REDIS_SEQUENTIAL', 5000),
      concurrent: setting('REDIS_CONCURRENT', 20_000),
      concurrency: 50,
      coldRoutes: setting('REDIS_COLD_ROUTES', 100_000),
      coldStarts: setting('REDIS_COLD_STARTS', 5),
    });
    return `### Small JSON POST, answered at once (onReceived)\n\n${http}\n\n${registry}`;
  } finally {
    await redis.stop();
  }
}
