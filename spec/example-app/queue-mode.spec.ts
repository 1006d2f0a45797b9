/**
 * `npm run start:queue` for real: example-app/queue-mode.ts starts its own redis-server, two worker processes and
 * the web instance on a free port. A call is answered from a worker, a report's status comes from its job,
 * an approval suspended on a worker is resumed through the queue, bull-board shows the jobs, and Ctrl-C (SIGINT) leaves no worker and no redis-server behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { freePort, REDIS } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { alive } from '../support/alive.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

if (findService(REDIS) === undefined) {
  markNotRun('npm run start:queue', REDIS);
} else {
  describe('npm run start:queue', function () {
    this.timeout(60_000);
    let child: ChildProcess;
    let stdout = '';
    let exited: Promise<number | null>;
    let base = '';

    before(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      // The same command as the script, without npm in between, so that SIGINT reaches it; fast report steps.
      child = spawn(process.execPath, ['--conditions=workflow-webhooks-source', '--import', 'tsx', 'example-app/queue-mode.ts'], {
        cwd: root, env: { ...process.env, PORT: String(port), REPORT_STEP_MS: '20' }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
      child.stderr?.resume();
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
      for (let tries = 0; tries < 100 && status.status !== 'done'; tries += 1) {
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

    it('stops its workers and its redis-server on Ctrl-C', async () => {
      const pids = [...stdout.matchAll(/pids (\d+), (\d+)/g)].flatMap((match) => [Number(match[1]), Number(match[2])]);
      expect(pids).to.have.length(2);
      child.kill('SIGINT');
      expect(await exited).to.equal(0);
      for (const pid of pids) expect(alive(pid), `worker ${pid}`).to.equal(false);
      const redisPort = /redis:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1];
      const probe = await fetch(`http://127.0.0.1:${redisPort}`).then(() => 'answered', (error: Error) => String((error.cause as { code?: string } | undefined)?.code));
      expect(probe).to.equal('ECONNREFUSED');
    });
  });
}
