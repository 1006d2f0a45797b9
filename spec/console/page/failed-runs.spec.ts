/**
 * Queue mode's failed runs in the console, in real Chromium against a real redis-server and BullMQ: a job whose
 * workflow failed all its attempts is listed with its error, its attempt count and what its caller was answered
 * (by the node's response mode), and the page's Retry runs it again until it completes, the row's attempts and time
 * following the job.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createClient } from 'redis';
import type { WebhookExecutor } from '../../../lib/index.js';
import { createWebhookQueue, createWebhookWorker, type WebhookQueue, type WebhookWorker } from '../../../lib/queue/index.js';
import { WEBHOOK_BASE } from '../../support/console-app.js';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { screenshotPath } from '../../support/chromium.js';
import { RedisServer, REDIS } from '../../support/redis-server.js';
import { findService, markNotRun } from '../../support/services.js';

const TITLE = 'the console retries a failed queue job (Chromium, redis-server)';
const SILENT = { error: (): void => undefined, warn: (): void => undefined };

function client(url: string) {
  const made = createClient({ url });
  made.on('error', () => undefined);
  return made;
}

if (findService(REDIS) === undefined) {
  markNotRun(TITLE, REDIS);
} else describe('queue mode in the console', () => {
  let server: RedisServer;
  let queue: WebhookQueue;
  let worker: WebhookWorker;
  /** The CRM the workflow calls is down until the spec says it is back. */
  let crmDown = true;
  const name = `console-${randomUUID().slice(0, 8)}`;

  before(async function () {
    this.timeout(30_000);
    server = await RedisServer.start() as RedisServer;
    queue = createWebhookQueue({ connection: client(server.url), name, attempts: 2, backoffMs: 50, logger: SILENT });
    worker = createWebhookWorker({
      connection: client(server.url), name, logger: SILENT,
      executor: (run) => {
        if (crmDown) throw new Error('CRM unreachable (503)');
        return { items: [{ json: { stored: run.workflowId } }] };
      },
    });
    await queue.ready();
  });
  after(async () => {
    await worker?.close({ timeoutMs: 1000 });
    await queue?.close();
    await server?.stop();
  });

  describeConsoleInChromium(TITLE, 60_000, (session) => {
    it('lists the failed job with its error and attempts, and Retry runs it to completion, refreshing attempts and time', async () => {
      const call = await fetch(`${session.app.origin}${WEBHOOK_BASE}/webhook/orders`, { method: 'POST', headers: { 'x-request-id': 'queued-1' } });
      expect(call.status).to.equal(200);
      for (const started = Date.now(); (await queue.failed()).length === 0; await new Promise((resolve) => setTimeout(resolve, 100))) {
        if (Date.now() - started > 10_000) throw new Error('the job did not fail within 10 s');
      }
      const [failed] = await queue.failed();
      const { page, errors } = await session.open('#failed');
      const row = page.locator(`tr.job[data-job-id="${failed!.jobId}"]`);
      await row.waitFor();
      expect(await row.textContent()).to.include('CRM unreachable (503)').and.to.include('Order intake').and.to.include('queued-1');
      expect(await row.locator('td.attempts').textContent()).to.equal('2');
      expect(await row.locator('td.caller').textContent()).to.equal('answered when the call was queued');
      await page.screenshot({ path: screenshotPath('console-failed-runs'), fullPage: true });
      const failedAt = await row.locator('td.finished time').getAttribute('datetime');

      crmDown = false;
      await row.getByRole('button', { name: 'Retry' }).click();
      await row.locator('.job-state').getByText('completed').waitFor({ timeout: 10_000 });
      const settled = await queue.status(failed!.jobId);
      expect(settled?.state).to.equal('completed');
      expect(await row.locator('td.attempts').textContent()).to.equal(String(settled?.attemptsMade));
      expect(await row.locator('td.finished time').getAttribute('datetime')).to.equal(new Date(settled!.finishedAt!).toISOString()).and.not.equal(failedAt);
      expect(await queue.failed()).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    });

    it('says a lastNode caller waited and was answered from the last attempt, not that it was answered when queued', async () => {
      crmDown = true;
      const call = await fetch(`${session.app.origin}${WEBHOOK_BASE}/webhook/fails`, { method: 'POST', headers: { 'x-request-id': 'waited-1' } });
      expect(call.status).to.equal(500);
      for (const started = Date.now(); (await queue.failed()).length === 0; await new Promise((resolve) => setTimeout(resolve, 100))) {
        if (Date.now() - started > 10_000) throw new Error('the job did not fail within 10 s');
      }
      const [failed] = await queue.failed();
      const { page, errors } = await session.open('#failed', { width: 390, height: 844 });
      const row = page.locator(`tr.job[data-job-id="${failed!.jobId}"]`);
      await row.waitFor();
      expect(await row.locator('td.caller').textContent()).to.equal('waited for the result: answered from the last attempt (500), or 524 once the deadline passed');
      expect(await page.locator('section.failed').textContent()).to.not.include('The call was answered when it was queued');
      // At a phone's width the row is a card: its State and Retry on screen, each with its column's name.
      for (const cell of ['td.job-state', 'td:has(button.retry)']) {
        const box = await row.locator(cell).boundingBox() as { x: number; width: number };
        expect(box.x, cell).to.be.at.least(0);
        expect(box.x + box.width, cell).to.be.at.most(390);
      }
      expect(await row.locator('td:has(button.retry)').getAttribute('data-label')).to.equal('Action');
      await page.screenshot({ path: screenshotPath('console-failed-runs-phone'), fullPage: true });
      crmDown = false;
      await row.getByRole('button', { name: 'Retry' }).click();
      await row.locator('.job-state').getByText('completed').waitFor({ timeout: 10_000 });
      expect(errors).to.deep.equal([]);
    });
  }, () => ({ executor: queue.executor as WebhookExecutor, console: { queue } }));
});
