import { expect } from 'chai';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createWebhookMiddleware,
  MemoryWebhookRegistry,
  type WebhookMiddleware,
  type WebhookRun,
} from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { listen } from '../../support/raw-http.js';
import { eventually, filesUnder, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { closeAll } from '../../support/close-all.js';

interface Answer { status: number; headers: IncomingMessage['headers']; body: string }

/** Sends a call and records when its answer came; a connection cut without an answer rejects. */
function call(port: number, path: string, body: string, options: { hold?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1', port, path: `${BASE}/webhook/${path}`, method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(body.length + (options.hold ? 10 : 0)) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    // `hold` promises ten bytes more than it sends: the body is still arriving when the server shuts down.
    if (options.hold) req.write(body);
    else req.end(body);
  });
}

for (const host of HOSTS) {
  describe(`close() answers the callers it stops, in ${host.name}`, function () {
    this.timeout(10_000);
    let temp: TempDir;
    let runs: WebhookRun[];
    let errors: unknown[];
    let warnings: string[];
    let middleware: WebhookMiddleware;
    let server: Awaited<ReturnType<typeof listen>>;
    let late: string[];
    let heard: string[];

    beforeEach(async () => {
      temp = makeTempDir();
      runs = [];
      errors = [];
      warnings = [];
      late = [];
      heard = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate({ workflowId: 'wf', nodes: [
        { name: 'Ignores', parameters: { path: 'last-ignores', httpMethod: 'POST', responseMode: 'lastNode' } },
        { name: 'Honours', parameters: { path: 'last-honours', httpMethod: 'POST', responseMode: 'lastNode' } },
        { name: 'Responds late', parameters: { path: 'node-ignores', httpMethod: 'POST', responseMode: 'responseNode' } },
        { name: 'Responds or stops', parameters: { path: 'node-honours', httpMethod: 'POST', responseMode: 'responseNode' } },
        { name: 'Breaks', parameters: { path: 'breaks', httpMethod: 'POST' } },
      ] });
      middleware = createWebhookMiddleware(registry, async (run) => {
        runs.push(run);
        if (run.nodeName === 'Breaks') {
          await sleep(300);
          throw new Error('the database is gone');
        }
        if (run.nodeName === 'Honours' || run.nodeName === 'Responds or stops') {
          // What a workflow that honours the signal does: its pending work rejects when the signal fires.
          await sleep(5000, undefined, { signal: run.signal });
        } else {
          await sleep(600);
          late.push(run.nodeName);
          if (run.nodeName === 'Responds late') run.respond({ body: { late: true } });
        }
        return { items: [{ json: { late: true } }] };
      }, {
        uploads: { tempDir: temp.path },
        responseTimeoutMs: 5000,
        logger: { error: (fields) => errors.push(fields), warn: (_fields, message) => warnings.push(message ?? '') },
        onWorkflowError: (error) => errors.push(error),
        onEvent: (event) => heard.push(event.type),
      });
      server = await listen(host.build(middleware));
    });
    afterEach(() => closeAll(() => server?.close(), () => temp?.remove()));

    it('answers lastNode and responseNode callers 503 SHUTTING_DOWN at once, whether their runs honour the signal or not, and drops the late results', async () => {
      const paths = ['last-ignores', 'last-honours', 'node-ignores', 'node-honours'];
      const answers = paths.map((path) => call(server.port, path, '{"a":1}'));
      await eventually(() => runs.length === 4);
      const result = await middleware.close({ timeoutMs: 100 });
      // What a host that exits right after close() does to its connections: every answer must be out by now.
      server.server.closeAllConnections();
      expect(result).to.deep.equal({ completed: 0, aborted: 4 });
      for (const answer of await Promise.all(answers)) {
        expect(answer.status).to.equal(503);
        expect(JSON.parse(answer.body).code).to.equal('SHUTTING_DOWN');
        expect(answer.headers['retry-after']).to.equal('5');
      }
      for (const run of runs) expect((run.signal.reason as { code?: string }).code).to.equal('SHUTTING_DOWN');
      // The runs that ignore the signal finish later; what they give is dropped, and nothing is reported.
      await eventually(() => late.length === 2, 3000);
      await sleep(50);
      expect(errors).to.deep.equal([]);
      expect(warnings.filter((message) => /4 call\(s\).*SHUTTING_DOWN/.test(message))).to.have.length(1);
    });

    it('answers a caller whose body is still arriving 503 SHUTTING_DOWN before close() resolves, and starts no run', async () => {
      const answer = call(server.port, 'last-ignores', '{"a":', { hold: true });
      await sleep(100);
      const result = await middleware.close({ timeoutMs: 50 });
      server.server.closeAllConnections();
      expect(result).to.deep.equal({ completed: 0, aborted: 1 });
      const answered = await answer;
      expect(answered.status).to.equal(503);
      expect(JSON.parse(answered.body).code).to.equal('SHUTTING_DOWN');
      // A run could only start from a request whose body ends: wait until the server holds no connection (none can
      // send more), then a turn for anything they set off, and only then say no run started.
      const connections = (): Promise<number> => new Promise((resolve, reject) => { server.server.getConnections((error, count) => (error ? reject(error) : resolve(count))); });
      while (await connections() > 0) await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(runs).to.have.length(0);
      expect(filesUnder(temp.path)).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    });

    it('still answers from a run that finishes within the timeout', async () => {
      const answer = call(server.port, 'last-ignores', '{"a":1}');
      await eventually(() => runs.length === 1);
      expect(await middleware.close({ timeoutMs: 3000 })).to.deep.equal({ completed: 1, aborted: 0 });
      const answered = await answer;
      expect(answered.status).to.equal(200);
      expect(JSON.parse(answered.body)).to.deep.equal({ late: true });
    });

    it('reports a failure of its own that a stopped run meets afterwards: only the stop itself is not a failure', async () => {
      expect((await call(server.port, 'breaks', '{}')).status).to.equal(200);
      expect(await middleware.close({ timeoutMs: 50 })).to.deep.equal({ completed: 0, aborted: 1 });
      await eventually(() => errors.length === 1, 2000);
      expect(String((errors[0] as { cause?: Error }).cause?.message)).to.equal('the database is gone');
      // The call was over when the run was told to stop: responded then, and the run's own failure after it.
      expect(heard).to.deep.equal(['received', 'started', 'responded', 'failed']);
    });
  });
}
