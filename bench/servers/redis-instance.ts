/**
 * One instance of a backend holding a RedisWebhookRegistry, in its own process (forked by bench/redis-instances.ts),
 * driven over IPC: open, activate, deactivate, watch a path until its look-up changes, bulk activations, in-process
 * look-ups, and a MemoryWebhookRegistry of the same size for comparison. Times are wall-clock milliseconds with sub-ms
 * precision (timeOrigin + now), comparable across processes on one machine.
 */
import { createClient, createCluster, createSentinel } from 'redis';
import { MemoryWebhookRegistry, type WorkflowWebhooks } from '../../lib/index.js';
import { RedisWebhookRegistry, type RedisClientLike } from '../../lib/redis/index.js';

interface Request { id: number; op: string; [field: string]: unknown }

const now = (): number => performance.timeOrigin + performance.now();
const heap = (): number => {
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().heapUsed;
};

let client: { destroy(): unknown } | undefined;
let registry: RedisWebhookRegistry | undefined;
/** Called right after every change-log read has been handed to the registry (see `watched`). */
let afterLogRead: () => void = () => undefined;

/**
 * The host's client, with the connections the registry duplicates from it wrapped: once an XREAD reply has been
 * handed over, the registry applies its entries in microtasks, so a check in the next setImmediate sees the table as
 * soon as it changed, without busy-polling the look-up (two spinning processes would starve Redis on two cores).
 */
function watched(source: RedisClientLike): RedisClientLike {
  // A proxy, not a plain object: a cluster or Sentinel client is told apart by its own methods, which must stay visible.
  return new Proxy(source, {
    get(target, property, receiver) {
      if (property === 'duplicate') {
        const duplicate = target.duplicate?.bind(target);
        return duplicate === undefined ? undefined : (...overrides: never[]) => watched(duplicate(...overrides));
      }
      if (property !== 'sendCommand') {
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      }
      return (...args: unknown[]) => {
        const reply = (target.sendCommand as (...all: unknown[]) => Promise<unknown>)(...args);
        const command = args.find(Array.isArray) as unknown[] | undefined;
        if (command?.[0] !== 'XREAD') return reply;
        return reply.then((value) => {
          setImmediate(() => afterLogRead());
          return value;
        });
      };
    },
  });
}

function workflow(workflowId: string, path: string): WorkflowWebhooks {
  return { workflowId, nodes: [{ name: 'Webhook', parameters: { path, httpMethod: 'POST' } }] };
}

function opened(): RedisWebhookRegistry {
  if (registry === undefined) throw new Error('open first');
  return registry;
}

/**
 * The client a user would write for the topology `url` names: `redis://…` one server, `cluster:<url>,<url>` a Redis
 * Cluster's root nodes, `sentinel:<name>@<host>:<port>,…` a Sentinel group.
 */
function clientFor(url: string): RedisClientLike & { destroy(): unknown } {
  if (url.startsWith('cluster:')) return createCluster({ rootNodes: url.slice(8).split(',').map((node) => ({ url: node })) }) as unknown as RedisClientLike;
  if (url.startsWith('sentinel:')) {
    const [name, nodes] = url.slice(9).split('@') as [string, string];
    return createSentinel({ name, sentinelRootNodes: nodes.split(',').map((node) => ({ host: node.split(':')[0] as string, port: Number(node.split(':')[1]) })) }) as unknown as RedisClientLike;
  }
  return createClient({ url }) as unknown as RedisClientLike;
}

async function open(url: string, prefix: string): Promise<Record<string, number>> {
  const made = clientFor(url);
  client = made;
  made.on('error', (error: unknown) => console.error('bench redis client:', error));
  await made.connect();
  const before = heap();
  const started = now();
  registry = new RedisWebhookRegistry({ client: watched(made), prefix });
  await registry.ready();
  const readyMs = now() - started;
  return { readyMs, heapBytes: heap() - before, workflows: registry.health().workflows };
}

let armed: Promise<number> | undefined;

/** Arms a watch on `path`; `seen` later answers when the look-up first gave `found` (a wall-clock time). */
function arm(path: string, found: boolean): void {
  const target = opened();
  armed = new Promise((resolve) => {
    let done = false;
    const check = (): void => {
      if (done) return;
      void target.lookup('production', 'POST', path).then((hit) => {
        if (done || hit.found !== found) return;
        done = true;
        const at = now();
        clearInterval(timer);
        afterLogRead = () => undefined;
        resolve(at);
      });
    };
    // The 1 ms poll is a safety net (a reload rather than a log read would still be seen); the log-read hook is
    // what normally sees the change first.
    const timer = setInterval(check, 1);
    afterLogRead = check;
    check();
  });
}

/** `count` distinct workflows through this registry, `concurrency` activations in flight at most. */
async function activateMany(tag: string, count: number, concurrency: number): Promise<Record<string, number>> {
  const target = opened();
  let next = 0;
  const started = now();
  const lane = async (): Promise<void> => {
    while (next < count) {
      const i = next;
      next += 1;
      await target.activate(workflow(`${tag}-${i}`, `${tag}/static-${i}`));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { ms: now() - started };
}

let local: MemoryWebhookRegistry | undefined;

/** The same workflows in a MemoryWebhookRegistry: activation time and heap, the yardstick for a cold start. */
async function memory(tag: string, count: number): Promise<Record<string, number>> {
  const before = heap();
  const started = now();
  local = new MemoryWebhookRegistry();
  for (let i = 0; i < count; i += 1) await local.activate(workflow(`${tag}-${i}`, `${tag}/static-${i}`));
  const ms = now() - started;
  const heapBytes = heap() - before;
  if ((await local.list()).length !== count) throw new Error('memory registry lost workflows');
  return { ms, heapBytes };
}

/**
 * In-process look-ups per second of one static path, no HTTP around them: median of 9 rounds of 200 000. Each round
 * yields to the event loop after it: a loop of resolved awaits never does, and a stall of seconds would make the
 * registry's own Redis reads miss their deadlines.
 */
async function lookups(which: string, path: string): Promise<Record<string, number>> {
  const target = which === 'memory' ? local : opened();
  if (target === undefined) throw new Error('no memory registry yet');
  const rates: number[] = [];
  for (let round = 0; round < 9; round += 1) {
    const started = now();
    for (let i = 0; i < 200_000; i += 1) {
      if (!(await target.lookup('production', 'POST', path)).found) throw new Error(`${path} not found`);
    }
    rates.push(200_000 / ((now() - started) / 1000));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { perSecond: rates.sort((a, b) => a - b)[4] ?? 0 };
}

async function handle(request: Request): Promise<unknown> {
  const { op } = request;
  const text = (name: string): string => String(request[name]);
  if (op === 'open') return open(text('url'), text('prefix'));
  if (op === 'activate') {
    const startedAt = now();
    await opened().activate(workflow(text('workflowId'), text('path')));
    return { startedAt, doneAt: now() };
  }
  if (op === 'deactivate') {
    const startedAt = now();
    await opened().deactivate(text('workflowId'));
    return { startedAt, doneAt: now() };
  }
  if (op === 'arm') return arm(text('path'), request.found === true);
  if (op === 'seen') return { at: await armed };
  if (op === 'activateMany') return activateMany(text('tag'), Number(request.count), Number(request.concurrency));
  if (op === 'memory') return memory(text('tag'), Number(request.count));
  if (op === 'lookups') return lookups(text('which'), text('path'));
  if (op === 'health') return opened().health();
  if (op === 'close') {
    await registry?.close();
    client?.destroy();
    setImmediate(() => process.exit(0));
    return {};
  }
  throw new Error(`unknown op ${op}`);
}

process.on('message', (request: Request) => {
  handle(request).then(
    (result) => process.send?.({ id: request.id, result }),
    (error: unknown) => process.send?.({ id: request.id, error: error instanceof Error ? error.stack : String(error) }),
  );
});
// The benchmark died without closing us: end rather than reconnect forever to a Redis that is gone with it.
process.on('disconnect', () => process.exit(1));
process.send?.({ id: 0, result: 'started' });
