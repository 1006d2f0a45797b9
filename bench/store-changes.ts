/**
 * `npm run bench -- stores`: what one registry change (an activation or a deactivation of a workflow of three
 * webhooks) costs on each shared store, the Redis registry on a private redis-server beside the PostgreSQL registry on
 * a private PostgreSQL server, both in this process: the time until the change is acknowledged, this process's CPU
 * and the store's own CPU (redis-server's INFO cpu; the postmaster and its backends from /proc), per change, the
 * median of the rounds. A change is rare beside calls (a deploy, an editor's toggle); what matters is that it stays
 * in milliseconds and that the request path never waits for it, which `npm run bench -- ratelimit` shows per call.
 */
import pg from 'pg';
import { createClient } from 'redis';
import { median } from './http.js';
import { startPostgres } from './postgres-server.js';
import { redisCpu, startRedis } from './redis-server.js';
import type { WebhookRegistry } from '../lib/index.js';
import { PostgresWebhookRegistry } from '../lib/postgres/index.js';
import { RedisWebhookRegistry } from '../lib/redis/index.js';

const CHANGES = Number(process.env.BENCH_CHANGES ?? 200);

function workflow(index: number): Parameters<WebhookRegistry['activate']>[0] {
  return {
    workflowId: `wf-${index}`,
    nodes: ['orders', 'orders/:id', 'refunds'].map((path, node) => ({ name: `Webhook ${node}`, parameters: { path: `${index}/${path}`, httpMethod: 'POST' } })),
  };
}


interface Round { wallMs: number; ownUs: number; storeUs: number }

/** CHANGES changes (half activations, half deactivations), one after another, each awaited. */
async function round(registry: WebhookRegistry, storeCpu: () => Promise<number>, offset: number): Promise<Round> {
  const [storeBefore, ownBefore] = [await storeCpu(), process.cpuUsage()];
  const started = performance.now();
  for (let index = 0; index < CHANGES / 2; index += 1) await registry.activate(workflow(offset + index));
  for (let index = 0; index < CHANGES / 2; index += 1) await registry.deactivate(`wf-${offset + index}`);
  const wallMs = (performance.now() - started) / CHANGES;
  const own = process.cpuUsage(ownBefore);
  return { wallMs, ownUs: (own.user + own.system) / CHANGES, storeUs: (await storeCpu() - storeBefore) / CHANGES };
}

export async function benchStoreChanges(rounds: number): Promise<string> {
  const redis = await startRedis();
  const postgres = await startPostgres();
  const client = createClient({ url: redis.url });
  client.on('error', () => undefined);
  await client.connect();
  const pool = new pg.Pool({ connectionString: postgres.url });
  pool.on('error', () => undefined);
  const stores: Array<{ label: string; registry: WebhookRegistry & { ready(): Promise<void>; close(): Promise<void> }; cpu: () => Promise<number> }> = [
    { label: 'Redis registry', registry: new RedisWebhookRegistry({ client, prefix: 'bench-changes:' }), cpu: () => redisCpu(redis.url) },
    { label: 'PostgreSQL registry', registry: new PostgresWebhookRegistry({ pool, schema: 'bench_changes' }), cpu: async () => postgres.cpuMicros() },
  ];
  try {
    for (const store of stores) await store.registry.ready();
    const results = new Map<string, Round[]>();
    // Warm-up, then the stores take turns, so that neither always runs on a machine the other just loaded.
    for (const store of stores) await round(store.registry, store.cpu, 1_000_000);
    for (let index = 0; index < rounds; index += 1) {
      for (const store of index % 2 === 0 ? stores : [...stores].reverse()) {
        results.set(store.label, [...(results.get(store.label) ?? []), await round(store.registry, store.cpu, index * CHANGES)]);
      }
    }
    const lines = [`${CHANGES} changes per round (activations and deactivations of a workflow of three webhooks), ${rounds} rounds; medians per change:`, '',
      '| store | acknowledged after | this process µs CPU | store µs CPU |', '|---|---|---|---|'];
    for (const { label } of stores) {
      const all = results.get(label) ?? [];
      lines.push(`| ${label} | ${median(all.map((one) => one.wallMs)).toFixed(2)} ms | ${median(all.map((one) => one.ownUs)).toFixed(0)} | ${median(all.map((one) => one.storeUs)).toFixed(0)} |`);
    }
    return lines.join('\n');
  } finally {
    for (const store of stores) await store.registry.close().catch(() => undefined);
    client.destroy();
    await pool.end();
    await redis.stop();
    await postgres.stop();
  }
}
