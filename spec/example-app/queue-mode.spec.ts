/**
 * `npm run start:queue` for real: example-app/queue-mode.ts starts its own redis-server (or, with DATABASE_URL, uses
 * that PostgreSQL and no Redis), two worker processes and the web instance on a free port. A call is answered from a worker, a report's status comes from its job,
 * an approval suspended on a worker is resumed through the queue, bull-board shows the jobs, and Ctrl-C stops it
 * all in order and quietly. Ctrl-C in a terminal is SIGINT to the whole foreground process group, so the example runs
 * in a group of its own here and the signal goes to the group, as a terminal sends it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { REDIS } from '../support/redis-server.js';
import { POSTGRES, PostgresServer } from '../support/postgres-server.js';
import { freeListenPorts } from '../support/listen-ports.js';
import { findService, markNotRun } from '../support/services.js';
import { alive } from '../support/alive.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

const STORES = [
  { name: 'with a redis-server of its own', service: REDIS, postgres: false },
  { name: 'on PostgreSQL (DATABASE_URL), with no Redis', service: POSTGRES, postgres: true },
] as const;

for (const store of STORES) {
  if (findService(store.service) === undefined) {
    markNotRun(`npm run start:queue ${store.name}`, store.service);
    continue;
  }
  describe(`npm run start:queue ${store.name}`, function () {
    this.timeout(60_000);
    let database: PostgresServer | undefined;
    let child: ChildProcess;
    let stdout = '';
    let stderr = '';
    let exited: Promise<number | null>;
    let base = '';

    before(async () => {
      database = store.postgres ? await PostgresServer.start() : undefined;
      const port = await freeListenPorts(1);
      base = `http://127.0.0.1:${port}`;
      // The same command as the script, without npm in between, in a process group of its own. A report takes 2 s
      // (ten steps): long enough to be under way on a worker when Ctrl-C comes.
      child = spawn(process.execPath, ['--conditions=workflow-webhooks-source', '--import', 'tsx', 'example-app/queue-mode.ts'], {
        cwd: root, env: { ...process.env, PORT: String(port), REPORT_STEP_MS: '200', ...(database === undefined ? {} : { DATABASE_URL: database.url }) },
        stdio: ['ignore', 'pipe', 'pipe'], detached: true,
      });
      child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
      child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
      exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
      const deadline = Date.now() + 30_000;
      while (!stdout.includes('Try:')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`start:queue did not start:\n${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    after(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      // Whatever a failed test left behind goes too: the workers and redis-server run in process groups of their own.
      const groups = [child.pid as number, ...[...stdout.matchAll(/pids (\d+), (\d+)/g)].flatMap((match) => [Number(match[1]), Number(match[2])])];
      for (const group of groups) {
        try { process.kill(-group, 'SIGKILL'); } catch { /* gone */ }
      }
      await database?.stop();
    });

    it('answers a call from a worker process', async () => {
      const res = await fetch(`${base}/api/automation/webhook/orders/1`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.include({ id: 1, item: 'Coffee beans' }).and.have.property('ranOn').that.matches(/^worker [12]$/);
    });

    it('reports a long report\'s progress and result from its job', async () => {
      const started = await fetch(`${base}/api/automation/webhook/reports`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"Q3"}' });
      expect(started.status).to.equal(202);
      const { jobId, statusUrl } = await started.json() as { jobId: string; statusUrl: string };
      expect(statusUrl).to.equal(`${base}/api/automation/webhook/reports/${jobId}`);
      let status: { status?: string; result?: unknown } = {};
      for (let tries = 0; tries < 400 && status.status !== 'done'; tries += 1) {
        status = await (await fetch(statusUrl)).json() as typeof status;
        if (status.status !== 'done') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).to.deep.include({ status: 'done', progress: 100 });
      expect(status.result).to.deep.include({ rows: 1234, title: 'Q3' });
    });

    it('suspends an approval on one worker and resumes it through the queue when its link is clicked', async () => {
      const created = await fetch(`${base}/api/automation/webhook/expenses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":120,"for":"Team lunch"}' });
      expect(created.status).to.equal(200);
      const { expense, approvalUrl } = await created.json() as { expense: { id: number }; approvalUrl: string };
      expect(approvalUrl.startsWith(`${base}/api/automation/webhook-waiting/`)).to.equal(true);
      const approved = await fetch(`${approvalUrl}&decision=reject`);
      expect(approved.status).to.equal(200);
      const body = await approved.json() as { expense: unknown; ranOn: string };
      expect(body.expense).to.deep.equal({ id: expense.id, amount: 120, for: 'Team lunch', status: 'rejected' });
      expect(body.ranOn).to.match(/^worker [12]$/);
      expect((await fetch(`${approvalUrl}&decision=approve`)).status).to.equal(409);
    });

    it('shows the queue\'s jobs in bull-board at /admin/queues', async () => {
      expect((await fetch(`${base}/admin/queues`)).status).to.equal(200);
      const { queues } = await (await fetch(`${base}/admin/queues/api/queues`)).json() as { queues: { name: string; counts: { completed: number } }[] };
      expect(queues[0]?.name).to.equal('webhooks');
      expect(queues[0]?.counts.completed).to.be.at.least(2);
    });

    it(`stops on Ctrl-C in order, web instance, then workers${store.postgres ? '' : ', then redis-server'}, with no error line`, async () => {
      const pids = [...stdout.matchAll(/pids (\d+), (\d+)/g)].flatMap((match) => [Number(match[1]), Number(match[2])]);
      expect(pids).to.have.length(2);
      // A run under way on a worker: it must finish against a Redis that is still there.
      const started = await fetch(`${base}/api/automation/webhook/reports`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"Q4"}' });
      const { statusUrl } = await started.json() as { statusUrl: string };
      let progress = 0;
      while (progress === 0) progress = (await (await fetch(statusUrl)).json() as { progress: number }).progress;
      expect(progress).to.be.below(100);
      const [outBefore, errBefore] = [stdout.length, stderr.length];
      process.kill(-(child.pid as number), 'SIGINT');
      expect(await exited).to.equal(0);
      const out = stdout.slice(outBefore).split('\n').filter((line) => line !== '');
      expect(stderr.slice(errBefore)).to.equal('');
      expect(out.filter((line) => /error|fail|ECONNREFUSED/i.test(line))).to.deep.equal([]);
      // Each step says when it is done, in the order it was taken; redis-server is stopped by the example, last.
      const at = (line: string): number => out.indexOf(line);
      expect(out).to.include.members(['web instance closed', 'worker 1 closed', 'worker 2 closed']);
      expect(at('web instance closed')).to.be.below(Math.min(at('worker 1 closed'), at('worker 2 closed')));
      for (const pid of pids) expect(alive(pid), `worker ${pid}`).to.equal(false);
      if (store.postgres) {
        expect(out.some((line) => /redis/i.test(line))).to.equal(false);
        return;
      }
      expect(Math.max(at('worker 1 closed'), at('worker 2 closed'))).to.be.below(at('redis-server stopped'));
      const redisPort = /redis:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1];
      const probe = await fetch(`http://127.0.0.1:${redisPort}`).then(() => 'answered', (error: Error) => String((error.cause as { code?: string } | undefined)?.code));
      expect(probe).to.equal('ECONNREFUSED');
    });
  });
}
