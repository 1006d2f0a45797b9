/**
 * `npm run start:cluster` for real: example-app/cluster.ts against a private redis-server, on free ports. Its own
 * proof lines are what a user sees, so they are asserted as printed; then Ctrl-C (SIGINT) must leave no instance.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { REDIS, RedisServer } from '../support/redis-server.js';
import { POSTGRES, PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';
import { alive } from '../support/alive.js';
import { freeListenPorts } from '../support/listen-ports.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Run { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> }

/** The same command as `npm run start:cluster`, without npm in between, so that SIGINT reaches the script. */
function startCluster(env: NodeJS.ProcessEnv): Run {
  const child = spawn(process.execPath, ['--conditions=workflow-webhooks-source', '--import', 'tsx', 'example-app/cluster.ts'], {
    cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Resolves once `line` was printed; rejects with everything printed when the script ended or took too long. */
async function printed(run: Run, line: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let ended = false;
  void run.exited.then(() => { ended = true; });
  while (!run.stdout().includes(line)) {
    if (ended || Date.now() > deadline) throw new Error(`No "${line}" in:\n${run.stdout()}\n${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * What a user sees once the script has started: the three instances' proof lines as printed, then Ctrl-C stops them
 * all and nothing is left running; whichever store they share. Resolves the instances' pids.
 */
async function expectProvedThenStopped(run: Run, port: number, seen: (pids: number[]) => void): Promise<void> {
  await printed(run, 'Ctrl-C stops a, b and c.', 25_000);
  const out = run.stdout();
  const pids = [...out.matchAll(/^ {2}[abc] {2}http:\/\/127\.0\.0\.1:\d+ {2}pid (\d+)/gm)].map((match) => Number(match[1]));
  seen(pids);
  expect(pids).to.have.length(3);
  expect(out).to.include(`  a  http://127.0.0.1:${port}  pid ${pids[0]}  activates the workflows`);

  // 1. The greeting only a activated, answered by b and c themselves.
  for (const name of ['b', 'c']) {
    expect(out).to.include(`   ${name}  GET /api/automation/webhook/hello?name=Ada -> 200, x-instance: ${name}, "Hello Ada, this text came from the workflow.\\n"`);
  }
  // 2. A listen started on a, the call sent to b, the capture returned by a's editor route.
  expect(out).to.include('   b  POST /api/automation/webhook-test/signup {"name":"Ada"} -> 200, x-instance: b, {"welcome":"Welcome, Ada!"}');
  expect(out).to.include('   a  POST /api/editor/workflows/signup/listen -> 200, x-instance: a, received: body {"name":"Ada"}, output {"welcome":"Welcome, Ada!"}');
  // 3. The deactivation on a, seen by b and c (how fast: `npm run bench -- redis`); then active again.
  expect(out).to.include('   a  DELETE /api/editor/workflows/greeting/active -> 200, x-instance: a, {"workflowId":"greeting","active":false,"wasActive":true}');
  expect(out).to.match(/b and c answer GET \S+ with 404 after \d+ ms and \d+ ms/);
  expect(out).to.match(/a {2}PUT \/api\/editor\/workflows\/greeting\/active -> 200; b and c answer 200 again after \d+ ms and \d+ ms/);
  expect(out).to.include(`curl -i 'http://127.0.0.1:${port + 1}/api/automation/webhook/hello?name=Ada'`);
  expect(pids.every(alive)).to.equal(true);

  run.child.kill('SIGINT');
  expect(await run.exited).to.equal(0);
  expect(run.stdout()).to.include(`Stopped a (pid ${pids[0]}), b (pid ${pids[1]}), c (pid ${pids[2]}).`);
  expect(pids.filter(alive)).to.deep.equal([]);
  // No instance reported an error (registry events, a failed start) on the way.
  expect(run.stderr()).to.equal('');
}

describe('example-app: npm run start:cluster', function () {
  this.timeout(30_000);

  it('without DATABASE_URL or REDIS_URL says how to give either, and exits 1', async () => {
    const env = { ...process.env };
    delete env.REDIS_URL;
    delete env.DATABASE_URL;
    const run = startCluster(env);
    expect(await run.exited).to.equal(1);
    expect(run.stderr()).to.include("redis-server --port 6379 --save '' --appendonly no");
    expect(run.stderr()).to.include('REDIS_URL=redis://127.0.0.1:6379 npm run start:cluster');
    expect(run.stderr()).to.include('DATABASE_URL=postgres://user:password@127.0.0.1:5432/app npm run start:cluster');
  });

  if (findService(REDIS) === undefined) {
    markNotRun('example-app cluster on Redis (npm run start:cluster)', REDIS);
    return;
  }

  let redis: RedisServer | undefined;
  let run: Run | undefined;
  let pids: number[] = [];
  before(async () => {
    redis = await RedisServer.start();
  });
  after(async () => {
    // Only when the test failed half-way: nothing it started may outlive the run.
    run?.child.kill('SIGKILL');
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
    await redis?.stop();
  });

  it('proves three instances share one registry, then stops all of them on SIGINT', async () => {
    // The script takes PORT, PORT+1 and PORT+2.
    const port = await freeListenPorts(3);
    run = startCluster({ ...process.env, REDIS_URL: redis?.url, PORT: String(port), REDIS_PREFIX: `spec-cluster-${process.pid}:` });
    await expectProvedThenStopped(run, port, (seen) => { pids = seen; });
  });
});

describe('example-app: npm run start:cluster on PostgreSQL (DATABASE_URL)', function () {
  this.timeout(60_000);
  if (findService(POSTGRES) === undefined) {
    markNotRun('example-app cluster on PostgreSQL (DATABASE_URL=… npm run start:cluster)', POSTGRES);
    return;
  }

  let postgres: PostgresServer | undefined;
  let run: Run | undefined;
  let pids: number[] = [];
  before(async () => {
    postgres = await PostgresServer.start();
  });
  after(async () => {
    run?.child.kill('SIGKILL');
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
    await postgres?.stop();
  });

  it('proves three instances share one registry in one database, with no Redis, then stops all of them on SIGINT', async () => {
    const port = await freeListenPorts(3);
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: postgres?.url, PORT: String(port), DATABASE_SCHEMA: `spec_cluster_${process.pid}` };
    delete env.REDIS_URL;
    run = startCluster(env);
    await printed(run, `Orders API cluster on PostgreSQL, schema spec_cluster_${process.pid}`, 10_000);
    await expectProvedThenStopped(run, port, (seen) => { pids = seen; });
  });
});
