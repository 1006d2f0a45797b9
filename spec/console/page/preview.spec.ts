/**
 * The console's node parameter preview (its Preview section), in real Chromium: one definition of each of the 15 element types
 * rendered, resource and operation switching what shows, the resource locator's modes (list from the example's
 * search method, a validation's errorMessage), the resource mapper's fields and noFieldsError, lint findings that
 * focus their field, and a pasted description.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { PROPERTY_TYPES } from 'workflow-webhooks/definitions';
import { screenshotPath } from '../../support/chromium.js';
import { describeConsoleInChromium } from '../../support/console-browser.js';

const TITLE = 'the console\'s preview renders any node description (Chromium)';

describeConsoleInChromium(TITLE, 20_000, (session) => {
  let page: Page;
  /** The page's JavaScript errors and console errors: every test ends by asserting there were none. */
  let errors: string[];
  beforeEach(async () => {
    ({ page, errors } = await session.open('#preview', { width: 1280, height: 900 }));
    await page.getByText('No findings: the description is valid.').waitFor();
  });

  it('renders one definition of each of the 15 element types', async () => {
    const form = page.locator('.rendered');
    for (const type of PROPERTY_TYPES) {
      expect(await form.locator(`.field[data-type="${type}"]`).first().isVisible(), type).to.equal(true);
    }
    expect(await form.getByLabel('Access Token').getAttribute('type')).to.equal('password');
    expect(await form.getByLabel('Note').evaluate((element) => element.tagName)).to.equal('TEXTAREA');
    expect(await form.getByLabel('Message').getAttribute('data-editor')).to.equal('htmlEditor');
    expect(await form.getByLabel('Header Row').getAttribute('max')).to.equal('100');
    expect(await form.getByRole('note').first().textContent()).to.equal('Rows are added after the last row that has a value in any column.');
    await form.getByLabel('Header Row').fill('1.5');
    await form.getByText('Value may have at most 0 decimal places').waitFor();
    expect(errors).to.deep.equal([]);
  });

  it('builds filter conditions whose case rule follows the sibling Ignore Case option, and fills the other builders', async () => {
    const form = page.locator('.rendered');
    await form.getByRole('button', { name: 'Add condition' }).click();
    await form.locator('.condition').getByLabel('Value').fill('{{ $json.status }}');
    await form.locator('.condition').getByLabel('Compared with').fill('active');
    await form.getByText('Comparisons are not case sensitive').waitFor();
    await form.getByRole('button', { name: 'Add Option' }).click();
    await form.locator('.add-menu').getByRole('button', { name: 'Ignore Case' }).click();
    await form.getByLabel('Ignore Case').uncheck();
    await form.getByText('Comparisons are case sensitive').waitFor();
    await form.getByRole('button', { name: 'Add field' }).click();
    await form.locator('.assignment').getByLabel('Name').fill('source');
    await form.getByRole('button', { name: 'Add Cell Format' }).click();
    await form.getByLabel('Column', { exact: true }).fill('status');
    const values = JSON.parse((await page.locator('pre.values').textContent())!) as Record<string, any>;
    expect(values.conditions.conditions[0]).to.deep.include({ leftValue: '{{ $json.status }}', rightValue: 'active' });
    expect(values.conditions.options).to.deep.include({ caseSensitive: true, typeValidation: 'loose' });
    expect(values.assignments.assignments[0]).to.deep.include({ name: 'source', type: 'string' });
    expect(values.formats).to.deep.equal({ format: [{ column: 'status', bold: false }] });
    expect(values.options).to.deep.equal({ ignoreCase: false });
    await form.getByLabel('Sheet', { exact: true }).selectOption({ label: 'Orders 2026' });
    await form.locator('.mapper').getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await page.screenshot({ path: screenshotPath('console-preview'), fullPage: true });
    expect(errors).to.deep.equal([]);
  });

  it('shows what the chosen resource and operation ask for', async () => {
    const form = page.locator('.rendered');
    await form.getByLabel('Written At').waitFor();
    await form.getByLabel('Operation').selectOption({ label: 'Update' });
    expect(await form.getByLabel('Written At').count()).to.equal(0);
    await form.getByLabel('Resource').selectOption('sheet');
    await form.getByLabel('Sheet Title').waitFor();
    expect(await form.getByLabel('Sheet', { exact: true }).count()).to.equal(0);
    expect(await form.getByLabel('Operation').inputValue()).to.equal('create');
    expect(errors).to.deep.equal([]);
  });

  it('fills a resource locator from the search method, checks its URL mode, and maps the chosen sheet\'s columns', async () => {
    const form = page.locator('.rendered');
    const sheet = form.getByLabel('Sheet', { exact: true });
    await form.getByText('3 found').waitFor();
    await form.getByLabel('Search').fill('cust');
    await form.getByText('1 found').waitFor();
    await form.getByLabel('Search').fill('');
    await form.getByText('3 found').waitFor();
    await form.getByLabel('Name', { exact: true }).waitFor();
    await sheet.selectOption({ label: 'Archive (empty)' });
    await form.getByText('This sheet has no columns: give it a header row first.').waitFor();
    expect(await form.getByLabel('Name', { exact: true }).count()).to.equal(0);

    await form.getByLabel('Mode', { exact: true }).selectOption('url');
    await sheet.fill('https://evil.example.org/d/1');
    await form.getByText('Not a valid sheet URL').waitFor();
    await sheet.fill('https://docs.example.com/d/1AbC-dEf_123/edit');
    expect(await form.getByText('Not a valid sheet URL').count()).to.equal(0);
    // Another sheet: the mapping method is asked again, and the columns are back, ID pre-selected to match on.
    await form.getByLabel('Name', { exact: true }).waitFor();
    expect(await form.getByLabel('Column to Match On').inputValue()).to.equal('id');
    expect(errors).to.deep.equal([]);
  });

  it('lists the lint findings with their pointers, and a finding focuses its field', async () => {
    await page.getByLabel('Example').selectOption('ticket');
    await page.getByText('3 errors, 4 warnings').waitFor();
    const finding = page.locator('.finding-button[data-path="/properties/1/default"]');
    expect(await finding.textContent()).to.include('default-not-an-option');
    await finding.click();
    expect(await page.locator(':focus').getAttribute('id')).to.equal(await page.getByLabel('Priority').getAttribute('id'));
    // A pointer deeper than any field (a mode's typeOptions) focuses the field that holds it.
    await page.locator('.finding-button[data-path="/properties/4/modes/0/typeOptions"]').click();
    expect(await page.locator('.field:has(:focus)').getAttribute('data-name')).to.equal('board');
    expect(errors).to.deep.equal([]);
  });

  it('renders a pasted description and says where pasted text is not JSON', async () => {
    const source = page.getByLabel('Description (JSON)');
    await source.fill('{ "properties": [ { "displayName": "Ticket Title", "name": "title", "type": "string", "default": "" }');
    await page.getByText(/Not valid JSON at line 1/).waitFor();
    await source.fill(JSON.stringify({ displayName: 'Pasted', properties: [{ displayName: 'Ticket Title', name: 'title', type: 'string', default: '', required: true }] }));
    await page.locator('.rendered').getByLabel('Ticket Title').waitFor();
    expect(await page.getByLabel('Example').inputValue()).to.equal('');
    expect(errors).to.deep.equal([]);
  });
});
