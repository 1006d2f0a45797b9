/**
 * The Redis registry between instances, each instance in its own process (servers/redis-instance.ts): how fast a
 * change on one instance reaches the others, how many activations per second one instance makes, and the cold start
 * of a new instance over 100 000 routes. Returns Markdown tables.
 */
import { createClient } from 'redis';
import { Instance } from './redis-instances.js';

export interface RedisRegistrySettings { cycles: number; sequential: number; concurrent: number; concurrency: number; coldRoutes: number; coldStarts: number }

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const ms = (value: number): string => value.toFixed(2);
const count = (value: number): string => Math.round(value).toLocaleString('en');

function latencyRow(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `| ${label} | ${sorted.length} | ${ms(percentile(sorted, 50))} | ${ms(percentile(sorted, 99))} | ${ms(sorted.at(-1) ?? 0)} |`;
}

async function forkOpen(n: number, url: string, prefix: string): Promise<Instance[]> {
  const instances = await Promise.all(Array.from({ length: n }, () => Instance.fork()));
  try {
    await Promise.all(instances.map((instance) => instance.request('open', { url, prefix })));
  } catch (error) {
    await Promise.all(instances.map((instance) => instance.close()));
    throw error;
  }
  return instances;
}

/** Runs `work` with `instance`, then closes it whatever happened. */
async function using<T>(instance: Instance, work: (instance: Instance) => Promise<T>): Promise<T> {
  try {
    return await work(instance);
  } finally {
    await instance.close();
  }
}

/** Bytes Redis holds for one registry prefix (the other benchmarks left theirs in the same Redis). */
async function prefixMemory(admin: { sendCommand(args: string[]): Promise<unknown> }, prefix: string): Promise<number> {
  let bytes = 0;
  for (const key of ['epoch', 'version', 'log', 'workflows', 'routes', 'workflow-routes']) {
    // SAMPLES 0: every field of a hash counted, not an estimate from a few.
    bytes += Number(await admin.sendCommand(['MEMORY', 'USAGE', `${prefix}${key}`, 'SAMPLES', '0']) ?? 0);
  }
  return bytes;
}

/**
 * A activates one workflow; B and C watch its path until they find it. A deactivates it; B and C watch until they
 * no longer find it. A sample is the time from A's call to the later of B and C (both must have seen it).
 */
export async function propagation(url: string, cycles: number): Promise<string> {
  const [a, b, c] = await forkOpen(3, url, `bench-propagation-${process.pid}:`) as [Instance, Instance, Instance];
  const shown: number[] = [];
  const gone: number[] = [];
  const deactivateCall: number[] = [];
  const path = 'propagation/hook';
  const watchers = [b, c];
  try {
    // The first cycles load the scripts into Redis (NOSCRIPT, then EVAL) and warm the JIT: not counted.
    const warmUp = 20;
    for (let cycle = 0; cycle < cycles + warmUp; cycle += 1) {
      await Promise.all(watchers.map((w) => w.request('arm', { path, found: true })));
      const on = await a.request('activate', { workflowId: 'propagation', path });
      const onSeen = await Promise.all(watchers.map((w) => w.request<{ at: number }>('seen')));
      await Promise.all(watchers.map((w) => w.request('arm', { path, found: false })));
      const off = await a.request('deactivate', { workflowId: 'propagation' });
      const offSeen = await Promise.all(watchers.map((w) => w.request<{ at: number }>('seen')));
      if (cycle < warmUp) continue;
      shown.push(Math.max(...onSeen.map((s) => s.at)) - (on.startedAt ?? 0));
      gone.push(Math.max(...offSeen.map((s) => s.at)) - (off.startedAt ?? 0));
      deactivateCall.push((off.doneAt ?? 0) - (off.startedAt ?? 0));
    }
  } finally {
    await Promise.all([a, b, c].map((instance) => instance.close()));
  }
  return ['| change made on instance A | samples | p50 ms | p99 ms | max ms |', '|---|---|---|---|---|',
    latencyRow('deactivate(), until B and C no longer find it', gone),
    latencyRow('activate(), until B and C find it', shown),
    latencyRow('deactivate() on A, until its promise resolved', deactivateCall)].join('\n');
}

/** Distinct workflows through one registry, alone on its prefix: one at a time, then `concurrency` in flight. */
export async function activations(url: string, settings: RedisRegistrySettings): Promise<string> {
  const [instance] = await forkOpen(1, url, `bench-activations-${process.pid}:`) as [Instance];
  const lines = ['| activations | workflows | time | activations/s |', '|---|---|---|---|'];
  try {
    // Warm-up: script loading and JIT.
    await instance.request('activateMany', { tag: 'warm', count: 500, concurrency: 1 });
    const runs = [
      { label: 'sequential (one in flight)', tag: 'seq', count: settings.sequential, concurrency: 1 },
      { label: `${settings.concurrency} in flight`, tag: 'par', count: settings.concurrent, concurrency: settings.concurrency },
    ];
    for (const run of runs) {
      const { ms: took = 0 } = await instance.request('activateMany', run);
      lines.push(`| ${run.label} | ${count(run.count)} | ${(took / 1000).toFixed(2)} s | ${count(run.count / (took / 1000))} |`);
    }
  } finally {
    await instance.close();
  }
  return lines.join('\n');
}

/** Longest EVAL/EVALSHA in Redis' slow log (commands over 10 ms), in ms; 0 when none was that slow. */
function longestScript(slowlog: unknown): number {
  let longest = 0;
  for (const entry of Array.isArray(slowlog) ? slowlog as unknown[][] : []) {
    const args = entry[3] as unknown[] | undefined;
    if (String(args?.[0] ?? '').startsWith('EVAL')) longest = Math.max(longest, Number(entry[2]) / 1000);
  }
  return longest;
}

/** `coldRoutes` workflows of one static webhook each, activated through one instance; then new instances start. */
async function coldStart(url: string, settings: RedisRegistrySettings): Promise<string> {
  const prefix = `bench-cold-${process.pid}:`;
  const admin = createClient({ url });
  admin.on('error', (error: unknown) => console.error('bench redis client:', error));
  await admin.connect();
  const lines = ['| measure | value |', '|---|---|'];
  try {
    const [loader] = await forkOpen(1, url, prefix) as [Instance];
    const { ms: activateMs = 0 } = await using(loader, (i) => i.request('activateMany', { tag: 'cold', count: settings.coldRoutes, concurrency: settings.concurrency }));
    const memoryUsed = await prefixMemory(admin, prefix);
    lines.push(`| ${count(settings.coldRoutes)} workflows (one static webhook each) activated through one instance, ${settings.concurrency} in flight | ${(activateMs / 1000).toFixed(1)} s (${count(settings.coldRoutes / (activateMs / 1000))}/s) |`);
    await admin.sendCommand(['SLOWLOG', 'RESET']);
    const starts: { readyMs: number; heapBytes: number; workflows: number }[] = [];
    const path = `cold/static-${Math.floor(settings.coldRoutes / 2)}`;
    let redisLookups = 0;
    for (let i = 0; i < settings.coldStarts; i += 1) {
      await using(await Instance.fork(), async (instance) => {
        const start = await instance.request<{ readyMs: number; heapBytes: number; workflows: number }>('open', { url, prefix });
        if (start.workflows !== settings.coldRoutes) throw new Error(`a new instance loaded ${start.workflows} workflows, not ${settings.coldRoutes}`);
        starts.push(start);
        if (i === 0) ({ perSecond: redisLookups = 0 } = await instance.request('lookups', { which: 'redis', path }));
      });
    }
    // The yardstick in a process of its own that never opens Redis: 100 000 activations in a memory registry run as
    // microtasks only, and would hold up an instance's own Redis connections for their whole length.
    const { memory, memoryLookups } = await using(await Instance.fork(), async (yardstick) => ({
      memory: await yardstick.request('memory', { tag: 'cold', count: settings.coldRoutes }),
      memoryLookups: (await yardstick.request('lookups', { which: 'memory', path })).perSecond ?? 0,
    }));
    const heapBytes = median(starts.map((s) => s.heapBytes));
    lines.push(`| new instance: \`ready()\` (median of ${starts.length}, each in a fresh process; all: ${starts.map((s) => `${Math.round(s.readyMs)}`).join(', ')} ms) | ${Math.round(median(starts.map((s) => s.readyMs)))} ms |`,
      `| new instance: heap growth over \`ready()\` (median) | ${(heapBytes / 2 ** 20).toFixed(1)} MiB (${count(heapBytes / settings.coldRoutes)} B per webhook) |`,
      `| for comparison, MemoryWebhookRegistry: activating the same ${count(settings.coldRoutes)} in process | ${Math.round(memory.ms ?? 0)} ms, heap ${((memory.heapBytes ?? 0) / 2 ** 20).toFixed(1)} MiB (${count((memory.heapBytes ?? 0) / settings.coldRoutes)} B per webhook) |`,
      `| look-ups/s in process among the ${count(settings.coldRoutes)}, Redis registry (new instance) vs MemoryWebhookRegistry | ${count(redisLookups)} vs ${count(memoryLookups)} (${(redisLookups / memoryLookups).toFixed(2)}) |`);
    const longest = longestScript(await admin.sendCommand(['SLOWLOG', 'GET', '100']));
    lines.push(`| longest script in Redis during the cold starts (the snapshot; Redis serves nothing else meanwhile) | ${longest === 0 ? 'under 10 ms' : `${ms(longest)} ms`} |`,
      `| Redis memory of the registry's keys (${count(settings.coldRoutes)} workflows, their routes, the change log) | ${(memoryUsed / 2 ** 20).toFixed(1)} MiB |`);
  } finally {
    admin.destroy();
  }
  return lines.join('\n');
}

export async function benchRedisRegistry(url: string, settings: RedisRegistrySettings): Promise<string> {
  return [
    `### Propagation between three instances (three processes, one Redis, one prefix)\n\n${await propagation(url, settings.cycles)}`,
    `### Activations through one instance (distinct workflows, one static webhook each)\n\n${await activations(url, settings)}`,
    `### Cold start over ${count(settings.coldRoutes)} routes\n\n${await coldStart(url, settings)}`,
  ].join('\n\n');
}
