/**
 * The editor page shows a test run that waits for a call, in real Chromium: the resume address (signed, with the
 * methods it takes), a button that calls it as the outside world would and shows the answer, and what became of
 * the wait: resumed, or expired. Both forms: a run that suspends (the approval workflow) and one that waits inside
 * the run (the document conversion draft).
 */
import { expect } from 'chai';
import { describeInChromium, screenshotPath } from '../support/chromium.js';

const TITLE = 'the editor page shows a test run that waits for a call (Chromium)';

const post = (url: string, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describeInChromium(TITLE, 30_000, (session) => {

  it('shows the resume address of a run that suspended, and its button resumes the run and shows the answer', async () => {
    const page = await session.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${session.app.base}/editor#expense-approval`);
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    const testUrl = await page.locator('[data-address="test"] .url').textContent();
    const answer = await post(testUrl!, { amount: 64, for: 'Train tickets' });
    expect(answer.status).to.equal(200);
    const { approvalUrl } = await answer.json() as { approvalUrl: string };

    const box = page.locator('.wait-box');
    await box.getByText('The run suspended itself').waitFor({ timeout: 5000 });
    expect(await box.locator('[data-address="resume"] .url').textContent()).to.equal(approvalUrl);
    expect(await box.locator('.methods .method').allTextContents()).to.deep.equal(['GET', 'POST']);
    await page.screenshot({ path: screenshotPath('editor-waiting'), fullPage: true });

    const call = box.getByRole('button', { name: 'Call resume address' });
    await call.click();
    await box.getByText('The resume address answered 200').waitFor({ timeout: 5000 });
    // The click is a GET without a decision: the approval workflow approves it, and its answer is the resumed run's.
    expect(JSON.parse((await box.locator('.resume-answer').textContent())!)).to.deep.include({
      expense: { id: 1, amount: 64, for: 'Train tickets', status: 'approved' },
    });
    await box.getByText('A call to the resume address resumed the run.').waitFor();
    expect(await call.isDisabled()).to.equal(true);
    // The address was one-time: a second call from elsewhere is told why not.
    expect((await fetch(approvalUrl)).status).to.equal(409);
    expect(failures).to.deep.equal([]);
    await page.close();
  });

  it('shows a run waiting inside itself in every tab; the button delivers the callback, and the run\'s output shows it', async () => {
    const context = await session.browser.newContext();
    const [page, second] = [await context.newPage(), await context.newPage()];
    await Promise.all([page.goto(`${session.app.base}/editor#conversion`), second.goto(`${session.app.base}/editor#conversion`)]);
    await page.bringToFront();
    await page.getByRole('button', { name: 'Listen for test event' }).click();
    await page.getByText('Listening for a test event').waitFor();
    const testUrl = await page.locator('[data-address="test"] .url').textContent();
    expect((await post(testUrl!, { document: 'report.docx' })).status).to.equal(200);

    for (const tab of [page, second]) await tab.locator('.wait-box').getByText('The run is waiting for a call').waitFor({ timeout: 5000 });
    expect(await page.locator('.wait-box .url').textContent()).to.match(/\/api\/automation\/webhook-waiting\/[\w-]{22}\?signature=[\w-]+$/);
    expect(await page.getByText('Call received; the workflow is running…').count()).to.equal(1);
    await page.getByRole('button', { name: 'Call resume address' }).click();
    await page.locator('.wait-box').getByText('The resume address answered 200').waitFor({ timeout: 5000 });
    for (const tab of [page, second]) {
      await tab.getByText('resumed the run').waitFor({ timeout: 5000 });
      await tab.locator('.outputPane').getByText('"the editor"').waitFor({ timeout: 5000 });
      await tab.locator('.outputPane').getByText('"report.docx"').waitFor();
    }
    await context.close();
  });

  it('says so when nobody called in time, and a new listen clears the wait', async () => {
    const page = await session.browser.newPage();
    await page.goto(`${session.app.base}/editor#conversion`);
    const listen = page.getByRole('button', { name: 'Listen for test event' });
    await listen.click();
    await page.getByText('Listening for a test event').waitFor();
    const testUrl = await page.locator('[data-address="test"] .url').textContent();
    expect((await post(testUrl!, { document: 'late.pdf', callbackWithinSeconds: 1 })).status).to.equal(200);
    const box = page.locator('.wait-box');
    await box.getByText('The run is waiting for a call').waitFor({ timeout: 5000 });
    const resumeUrl = await box.locator('.url').textContent();
    await box.getByText('Nobody called the resume address in time').waitFor({ timeout: 5000 });
    expect(await box.getByRole('button', { name: 'Call resume address' }).isDisabled()).to.equal(true);
    await page.locator('.outputPane').getByText(/The workflow failed: .*within 1000 ms/).waitFor({ timeout: 5000 });
    expect((await post(resumeUrl!, {})).status).to.be.oneOf([404, 409]);

    await listen.click();
    await page.getByText('Listening for a test event').waitFor();
    expect(await box.isHidden()).to.equal(true);
    await page.getByRole('button', { name: 'Stop listening' }).click();
    await page.close();
  });
});
