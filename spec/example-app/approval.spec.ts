import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createOrdersApp } from '../../example-app/app.js';
import { docBlock, ROOT } from '../support/readme/blocks.js';

describe('example-app: the approval pattern, end to end', () => {
  let server: Server;
  before(async () => {
    server = createServer(await createOrdersApp());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    if (server !== undefined) await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
  });

  it('records an expense, answers with its approval link, applies the click, and tells a second click why not', async () => {
    const created = await request(server).post('/api/automation/webhook/expenses').send({ amount: 120, for: 'Team lunch' }).expect(200);
    expect(created.body.expense).to.deep.equal({ id: 1, amount: 120, for: 'Team lunch', status: 'awaiting approval' });
    const link = new URL(created.body.approvalUrl as string);
    expect(link.pathname).to.match(/^\/api\/automation\/webhook-waiting\/[\w-]{22}$/);
    const click = `${link.pathname}${link.search}&decision=approve`;
    const approved = await request(server).get(click).expect(200);
    expect(approved.body).to.deep.equal({ expense: { id: 1, amount: 120, for: 'Team lunch', status: 'approved' } });
    const again = await request(server).get(click).expect(409);
    expect(again.body.code).to.equal('WAIT_RUN_FINISHED');
    await request(server).get(`${link.pathname}?decision=approve`).expect(403);
  });
});

/**
 * the waiting guide's approval recipe (docs/waiting.md) as a user follows it: the sh block's lines run one by one through `sh` and the real curl,
 * exactly as printed, against the example app; the placeholder line gets the link the first answer printed. curl
 * reads only the spec's own config, which sends the printed address (127.0.0.1:3000) to the app's test port
 * (`connect-to`, so the Host header, and with it the links the app hands out, stay the printed ones).
 */
describe('example-app: the waiting guide\'s approval recipe, run through sh and curl as printed', function () {
  this.timeout(30_000);
  let server: Server;
  let home: string;
  before(async () => {
    server = createServer(await createOrdersApp());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    home = mkdtempSync(join(tmpdir(), 'approval-curl-'));
    writeFileSync(join(home, '.curlrc'), `connect-to = "127.0.0.1:3000:127.0.0.1:${(server.address() as AddressInfo).port}"\n`);
  });
  after(async () => {
    if (server !== undefined) await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  const shell = (script: string): Promise<string> => new Promise((resolve, reject) => {
    execFile('sh', ['-c', script], { cwd: home, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home } }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${script}\n${stderr}`));
      else resolve(stdout);
    });
  });
  /** A printed answer as a pattern: `…` stands for what differs per run, a trailing `(409)` is the status. */
  const printed = (comment: string): { body: RegExp; status: string | undefined } => {
    const status = /\s+\((\d{3})\)$/.exec(comment)?.[1];
    const text = comment.replace(/^# /, '').replace(/\s+\(\d{3}\)$/, '');
    return { body: new RegExp(`^${text.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^"]+')}$`), status };
  };

  it('answers each printed curl line with the printed answer, the link\'s GET included', async () => {
    const lines = docBlock('docs/waiting.md', '# Waiting for a call', 0, 'sh').split('\n').filter((line) => line !== '');
    const placeholder = lines.find((line) => line.startsWith('APPROVAL_URL='));
    expect(placeholder).to.equal("APPROVAL_URL='<the approvalUrl printed above>'");
    const calls = lines.flatMap((line, index) => (line.startsWith('curl ') ? [{ line, answer: lines[index + 1] as string }] : []));
    expect(calls).to.have.length(3);
    let assignment = '';
    for (const { line, answer } of calls) {
      const expected = printed(answer);
      const out = await shell(`${assignment}${line}`);
      expect(out, line).to.match(expected.body);
      if (expected.status !== undefined) expect(await shell(`${assignment}${line} -s -o /dev/null -w '%{http_code}'`)).to.equal(expected.status);
      if (assignment === '') {
        const url = (JSON.parse(out) as { approvalUrl: string }).approvalUrl;
        assignment = `${(placeholder as string).replace('<the approvalUrl printed above>', url)}; `;
      }
    }
  });
});

describe('the waiting guide\'s approval code', () => {
  it('is example-app/approval.ts\'s region, as the file has it', () => {
    const file = readFileSync(join(ROOT, 'example-app/approval.ts'), 'utf8');
    const region = /\/\/ #region readme\n([\s\S]*?)\/\/ #endregion/.exec(file)?.[1];
    expect(region).to.be.a('string');
    expect(docBlock('docs/waiting.md', '# Waiting for a call', 1)).to.equal(region);
  });
});
