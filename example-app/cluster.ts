/**
 * `npm run start:cluster`: three instances of the orders API (example-app/server.ts, as child processes) share
 * their webhooks through one store: PostgreSQL (DATABASE_URL) or Redis (REDIS_URL). Only instance a activates the
 * workflows; the script then shows, over HTTP,
 * that b and c serve them, that a test listen on a captures a call to b, and that a deactivation on a holds
 * everywhere. It keeps the instances running until Ctrl-C, and stops them before it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { proveCluster, tryLines, type Member } from './cluster-proof.js';

const databaseUrl = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL === '' ? undefined : process.env.REDIS_URL;
if (databaseUrl === undefined && redisUrl === undefined) {
  process.stderr.write([
    'start:cluster needs a store the instances share: PostgreSQL or Redis. Give a database the app may create tables in:',
    '  DATABASE_URL=postgres://user:password@127.0.0.1:5432/app npm run start:cluster',
    'or start a Redis server, for example:',
    "  redis-server --port 6379 --save '' --appendonly no",
    'then, in another terminal:',
    '  REDIS_URL=redis://127.0.0.1:6379 npm run start:cluster',
    '',
  ].join('\n'));
  process.exit(1);
}

const basePort = Number(process.env.PORT ?? 3000);
const prefix = process.env.REDIS_PREFIX ?? 'orders-api:';
const schema = process.env.DATABASE_SCHEMA ?? 'orders_api';
/** What every instance is given: the one store, PostgreSQL when both are named (as server.ts chooses). */
const storeEnv = databaseUrl !== undefined ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : { REDIS_URL: redisUrl, REDIS_PREFIX: prefix };
const serverPath = fileURLToPath(new URL('./server.ts', import.meta.url));
const print = (line: string): void => { process.stdout.write(`${line}\n`); };

interface Instance extends Member { child: ChildProcess; exited: Promise<void> }

function start(name: string, port: number, activate: boolean): Instance {
  // The same node flags as this process (tsx, source conditions); an IPC channel, so that an instance stops
  // by itself should this process end without stopping it.
  const child = spawn(process.execPath, [...process.execArgv, serverPath], {
    env: { ...process.env, ...storeEnv, PORT: String(port), INSTANCE: name, ACTIVATE: activate ? '1' : '0' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  // An instance's errors and registry events, marked with its name; its own banner is left out.
  if (child.stderr !== null) createInterface({ input: child.stderr }).on('line', (line) => process.stderr.write(`[${name}] ${line}\n`));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code, signal) => {
    if (stopping) return;
    // While starting, the likely cause is a port in use (the instance said so above).
    const hint = started ? '' : `\nTo use other ports: PORT=${basePort + 10} npm run start:cluster`;
    void stopAll(1, `Instance ${name} exited (${signal ?? `code ${String(code)}`}); stopping the others.${hint}`);
  });
  return { name, url: `http://127.0.0.1:${port}`, child, exited };
}

let stopping = false;
/** All three answered. */
let started = false;

/** Stops every instance (SIGINT, then SIGKILL after 5 s), waits for each to exit, then exits itself. */
async function stopAll(code: number, why?: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (why !== undefined) process.stderr.write(`${why}\n`);
  const running = instances.filter(({ child }) => child.exitCode === null && child.signalCode === null);
  for (const { child } of running) child.kill('SIGINT');
  const force = setTimeout(() => { for (const { child } of running) child.kill('SIGKILL'); }, 5000);
  await Promise.all(instances.map(({ exited }) => exited));
  clearTimeout(force);
  print(`Stopped ${instances.map(({ name, child }) => `${name} (pid ${String(child.pid)})`).join(', ')}.`);
  process.exit(code);
}

/**
 * Resolves once the instance answers a plain host route with its own name: its registry is loaded before it
 * listens, and another server already on the port (an earlier run) does not count.
 */
async function answering(instance: Instance, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let seen = 'nothing';
  for (;;) {
    try {
      const res = await fetch(`${instance.url}/api/orders`);
      await res.arrayBuffer();
      if (res.ok && res.headers.get('x-instance') === instance.name) return;
      seen = `${res.status}, x-instance: ${res.headers.get('x-instance') ?? '(none)'}`;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`Instance ${instance.name} did not answer on ${instance.url} within ${withinMs / 1000} s (saw ${seen}).`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const instances: Instance[] = ['a', 'b', 'c'].map((name, index) => start(name, basePort + index, name === 'a'));
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

const members = instances as [Instance, Instance, Instance];
print(databaseUrl !== undefined ? `Orders API cluster on PostgreSQL, schema ${schema}` : `Orders API cluster on ${String(redisUrl)}, key prefix ${prefix}`);
try {
  await Promise.all(instances.map((instance) => answering(instance, 20_000)));
  started = true;
  for (const { name, url, child } of instances) {
    print(`  ${name}  ${url}  pid ${String(child.pid)}${name === 'a' ? '  activates the workflows' : ''}`);
  }
  print('');
  await proveCluster(members, print);
} catch (error) {
  await stopAll(1, `Failed: ${(error as Error).message}`);
}
print('');
for (const line of tryLines(members)) print(line);
print('');
print('Running; Ctrl-C stops a, b and c.');
