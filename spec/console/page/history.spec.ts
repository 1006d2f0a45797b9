/**
 * The console's History section in real Chromium, against the real middleware keeping calls in a MemoryHistoryStore:
 * the filter finds calls; a call opened shows its credentials as [redacted] and its files as rows, and what a caller
 * sent stays text; Replay runs the workflow once with run.replay, and a second click asks before running it again;
 * "Replay all matching" runs every matching call, its progress bar reaching the end from the event stream.
 */
import { expect } from 'chai';
import type { WebhookExecutor, WebhookRun } from '../../../lib/index.js';
import { MemoryHistoryStore } from '../../../lib/webhooks/history/memory-store.js';
import { consoleExecutor, WEBHOOK_BASE } from '../../support/console-app.js';
import { describeConsoleInChromium } from '../../support/console-browser.js';
import { screenshotPath } from '../../support/chromium.js';

const runs: WebhookRun[] = [];
const executor: WebhookExecutor = (run) => {
  runs.push(run);
  return consoleExecutor(run);
};
const replaysOf = (id: string): WebhookRun[] => runs.filter((run) => run.replay?.of === id);

describeConsoleInChromium('the console\'s History section (Chromium)', 60_000, (session) => {
  const send = async (path: string, body: FormData | string, headers: Record<string, string>): Promise<void> => {
    await (await fetch(`${session.app.origin}${WEBHOOK_BASE}/webhook/${path}`, { method: 'POST', body, headers })).arrayBuffer();
  };
  const sendJson = (path: string, body: unknown, requestId: string, headers: Record<string, string> = {}): Promise<void> =>
    send(path, JSON.stringify(body), { 'content-type': 'application/json', 'x-request-id': requestId, ...headers });
  /** The id history gave the call with this request id. */
  const idOf = async (requestId: string): Promise<string> => {
    await session.app.middleware.history!.flush();
    const { entries } = await session.app.middleware.history!.find({ requestId });
    if (entries[0] === undefined) throw new Error(`no kept call ${requestId}`);
    return entries[0].id;
  };

  it('finds calls with the filter and opens one: a credential shows [redacted], a file shows as a row, a caller\'s markup as text', async () => {
    await sendJson('orders', { order: { status: 'paid' }, note: '<img src=x onerror="window.pwned=1">' }, 'find-paid', { authorization: 'Bearer s3cr3t-token' });
    await sendJson('orders', { order: { status: 'open' } }, 'find-open');
    await sendJson('fails', { order: { status: 'paid' } }, 'find-failed');
    const form = new FormData();
    form.append('scan', new Blob([Buffer.from('PDF-BYTES')], { type: 'application/pdf' }), 'scan.pdf');
    await send('orders', form, { 'x-request-id': 'find-file' });
    const paidId = await idOf('find-paid');
    const fileId = await idOf('find-file');

    const { page, errors } = await session.open('#history');
    const rows = page.locator('tr.history-row');
    await page.locator(`tr.history-row[data-entry-id="${paidId}"]`).waitFor();
    await page.getByLabel('Status').selectOption('5');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator(`tr.history-row[data-entry-id="${paidId}"]`).waitFor({ state: 'detached' });
    expect(await rows.locator('td.code').allTextContents()).to.deep.equal(['WORKFLOW_FAILED']);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Workflow id').fill('orders');
    await page.getByLabel('Body field (JSON pointer)').fill('/order/status');
    await page.getByLabel('Equals').fill('paid');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator('tr.history-row td.code', { hasText: 'WORKFLOW_FAILED' }).waitFor({ state: 'detached' });
    expect(await Promise.all((await rows.all()).map((row) => row.getAttribute('data-entry-id')))).to.deep.equal([paidId]);

    await rows.getByRole('link', { name: 'Open' }).click();
    const detail = page.locator(`article.history-entry-detail[data-entry-id="${paidId}"]`);
    await detail.waitFor();
    const headers = detail.getByRole('list', { name: 'Headers' });
    const authorization = headers.locator('.json-key', { hasText: /^authorization: $/ });
    expect(await authorization.evaluate((key) => [key.nextElementSibling?.textContent, key.nextElementSibling?.className])).to.deep.equal(['"[redacted]"', 'json-string redacted']);
    expect(await detail.getByRole('list', { name: 'Body' }).textContent()).to.include('<img src=x onerror=\\"window.pwned=1\\">');
    expect(await detail.locator('img').count()).to.equal(0);
    expect(await page.evaluate('typeof window.pwned')).to.equal('undefined');
    expect(await page.content()).to.not.include('s3cr3t-token');
    await page.screenshot({ path: screenshotPath('console-history'), fullPage: true });

    await page.goto(`${session.url}#history/${fileId}`);
    const file = page.locator(`article.history-entry-detail[data-entry-id="${fileId}"] tr.history-file`);
    await file.waitFor();
    expect(await file.locator('td').allTextContents()).to.deep.equal(['scan', 'scan.pdf', 'application/pdf', '9 B']);
    expect(errors).to.deep.equal([]);
  });

  it('replays a call once with run.replay set, and asks before replaying it a second time', async () => {
    await sendJson('orders', { order: { status: 'paid' } }, 'replay-one');
    const id = await idOf('replay-one');
    const { page, errors } = await session.open(`#history/${id}`);
    const detail = page.locator(`article.history-entry-detail[data-entry-id="${id}"]`);
    await detail.getByRole('button', { name: 'Replay', exact: true }).click();
    await detail.locator('.replay-result .replayed').waitFor();
    const original = await session.app.middleware.history!.get(id);
    expect(replaysOf(id).map((run) => run.replay)).to.deep.equal([{ of: id, at: original!.at, by: 'console' }]);

    await detail.getByRole('button', { name: 'Replay', exact: true }).click();
    const confirm = detail.getByRole('alertdialog', { name: 'Replay this call again?' });
    await confirm.waitFor();
    expect(replaysOf(id)).to.have.length(1);
    await confirm.getByRole('button', { name: 'Replay again' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await detail.locator('.replay-result .replayed').waitFor();
    expect(replaysOf(id)).to.have.length(2);

    await detail.getByRole('link', { name: 'Open the replay' }).click();
    const replay = page.locator('article.history-entry-detail', { has: page.locator('a.original') });
    await replay.waitFor();
    expect(await replay.locator('a.original').textContent()).to.equal(id);
    // The one refusal the page asked on: Chromium reports every 4xx answer of a fetch.
    expect(errors).to.deep.equal(['console: Failed to load resource: the server responded with a status of 409 (Conflict)']);
  });

  it('replays every call the filter matches, its progress bar reaching the end, and Stop ends one under way', async () => {
    for (const index of [1, 2, 3]) await sendJson('orders', { batch: 'bulk', index }, `bulk-${index}`);
    const ids = await Promise.all([1, 2, 3].map((index) => idOf(`bulk-${index}`)));
    const { page, errors } = await session.open('#history');
    await page.locator('.live').getByText('Live').waitFor();
    await page.getByLabel('Body field (JSON pointer)').fill('/batch');
    await page.getByLabel('Equals').fill('bulk');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator(`tr.history-row[data-entry-id="${ids[0]!}"]`).waitFor();
    await page.getByLabel('Replays a second').fill('1000');
    await page.getByRole('button', { name: 'Replay all matching' }).click();
    const bulk = page.locator('.bulk-status');
    await bulk.locator('.bulk-state', { hasText: 'Done' }).waitFor({ timeout: 20_000 });
    const counts: Record<string, string | null> = {};
    for (const name of ['matched', 'replayed', 'failed', 'refused', 'skipped']) counts[name] = await bulk.locator(`.bulk-count[data-count="${name}"]`).textContent();
    expect(counts).to.deep.equal({ matched: '3', replayed: '3', failed: '0', refused: '0', skipped: '0' });
    const bar = bulk.locator('progress');
    expect([await bar.getAttribute('value'), await bar.getAttribute('max')]).to.deep.equal(['3', '3']);
    expect(ids.map((id) => replaysOf(id).length)).to.deep.equal([1, 1, 1]);
    await page.screenshot({ path: screenshotPath('console-history-bulk'), fullPage: true });

    // Again, slowly, including the calls replayed above; Stop ends it with calls left.
    await page.getByLabel('Include calls replayed before').check();
    await page.getByLabel('Replays a second').fill('0.5');
    await page.getByRole('button', { name: 'Replay all matching' }).click();
    await bulk.locator('.bulk-state', { hasText: 'Running' }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await bulk.locator('.bulk-state', { hasText: 'Stopped' }).waitFor({ timeout: 20_000 });
    expect(await page.getByRole('button', { name: 'Stop' }).isHidden()).to.equal(true);
    expect(ids.map((id) => replaysOf(id).length).reduce((sum, count) => sum + count)).to.be.below(6);
    expect(errors).to.deep.equal([]);
  });

  it('fits a phone\'s screen: the page never scrolls sideways, and every cell of the list lies on it', async () => {
    const form = new FormData();
    form.append('scan', new Blob([Buffer.from('PDF-BYTES')], { type: 'application/pdf' }), 'a-rather-long-scan-name-of-an-order.pdf');
    await send('orders', form, { 'x-request-id': 'phone-file' });
    const id = await idOf('phone-file');
    const { page, errors } = await session.open(`#history/${id}`, { width: 390, height: 844 });
    await page.locator(`article.history-entry-detail[data-entry-id="${id}"] tr.history-file`).waitFor();
    await page.locator(`tr.history-row[data-entry-id="${id}"]`).waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).to.be.at.most(390);
    const off: string[] = [];
    for (const cell of await page.locator('.table-wrap td').all()) {
      const box = await cell.boundingBox();
      if (box !== null && (box.x < 0 || box.x + box.width > 390)) off.push(`${await cell.getAttribute('data-label')} at ${Math.round(box.x)}`);
    }
    expect(off).to.deep.equal([]);
    await page.screenshot({ path: screenshotPath('console-history-phone'), fullPage: true });
    expect(errors).to.deep.equal([]);
  });
}, () => ({ executor, middleware: { history: { store: new MemoryHistoryStore(), bodyBytes: 65_536 } } }));
