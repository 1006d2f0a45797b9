/**
 * The Webhooks section: every address the registry serves now (production, test while a listen runs, waiting runs'
 * resume addresses) with its full URL and how it is guarded, filtered by text and by kind. A listen starting or
 * ending changes the test addresses, so a `listen` event loads the list again.
 */
import type { GuardsDto, RateLimitDto, WebhookKindDto, WebhookListing, WebhookRow } from '../protocol.js';
import { errorText } from './api.js';
import { copyButton, h, newId, scrollTable } from './dom.js';
import { expiryTime } from './format.js';
import { coalesced, type ConsoleContext, type Section } from './section.js';

const KIND_NAMES: Record<WebhookKindDto, string> = { production: 'Production', test: 'Test', waiting: 'Waiting' };

const UNLISTED_NOTES: Record<WebhookKindDto, string> = {
  production: 'This registry cannot list its production addresses.',
  test: 'This registry cannot list test addresses (it has no listTestWebhooks method), so a test listen’s address does not show here.',
  waiting: 'This registry cannot list waiting runs (it has no listWaits method), so their resume addresses do not show here.',
};

function chip(text: string, kind = ''): HTMLElement {
  return h('li', { class: `chip${kind === '' ? '' : ` ${kind}`}` }, text);
}

/** `rate limit: 10 per 60 s per caller address`: the policy as a caller meets it (a header key by its name only). */
function rateLimitText(policy: RateLimitDto): string {
  const whose = policy.key === 'address' ? 'for all callers' : policy.key === 'ip' ? 'per caller address' : `per ${policy.header ?? 'header'} value`;
  const seconds = Math.ceil(policy.windowMs / 1000);
  return `rate limit: ${policy.limit} per ${seconds} s ${whose}`;
}

function guardsView(guards: GuardsDto, refused: number | undefined): HTMLElement {
  const open = guards.authentication === 'none' && guards.signed !== true && guards.ipAllowlist === undefined;
  return h('ul', { class: 'guards' },
    chip(guards.authentication === 'none' ? 'no authentication' : `auth: ${guards.authentication}`, open ? 'chip-open' : 'chip-auth'),
    ...(guards.credentials ?? []).map((name) => chip(`credential: ${name}`)),
    guards.signatureScheme === undefined ? null : chip(`signature: ${guards.signatureScheme}`),
    guards.ipAllowlist === undefined ? null : chip(`IP allow list: ${guards.ipAllowlist}`),
    guards.allowedOrigins === undefined ? null : chip(`CORS: ${guards.allowedOrigins}`),
    guards.ignoreBots ? chip('ignores bots') : null,
    guards.signed === true ? chip('signed', 'chip-auth') : null,
    ...(guards.rateLimits ?? []).map((policy) => chip(rateLimitText(policy), 'chip-limit')),
    refused === undefined ? null : chip(`${refused} refused (rate limit) among the recent calls`, refused > 0 ? 'chip-refused' : 'chip-limit'));
}

function methodsView(methods: string[]): HTMLElement {
  return h('span', { class: 'methods' }, ...methods.map((method) => h('span', { class: 'method' }, method)));
}

function webhookRow(row: WebhookRow): HTMLTableRowElement {
  const name = row.workflowName ?? row.workflowId;
  return h('tr', { class: 'webhook', 'data-kind': row.kind, 'data-workflow-id': row.workflowId },
    h('td', {}, h('span', { class: `kind kind-${row.kind}` }, KIND_NAMES[row.kind]),
      row.form === undefined ? null : h('span', { class: 'sub' }, row.form === 'inRun' ? 'run waits' : 'run suspended')),
    h('td', {}, h('span', { class: 'workflow-name' }, name), row.workflowName === undefined ? null : h('span', { class: 'sub' }, row.workflowId)),
    h('td', {}, row.nodeName),
    h('td', {}, methodsView(row.methods)),
    h('td', { class: 'url-cell' }, h('code', { class: 'url' }, row.url), ' ', copyButton(() => row.url, `address of ${name}, node ${row.nodeName}`)),
    h('td', {}, row.responseMode),
    h('td', {}, guardsView(row.guards, row.refused)),
    h('td', { class: 'expiry' }, row.expiresAt === undefined ? '—' : expiryTime(row.expiresAt)));
}

/** What the text filter looks through: workflow name and id, node, path, URL and methods. */
function searchText(row: WebhookRow): string {
  return [row.workflowName ?? '', row.workflowId, row.nodeName, row.path, row.url, ...row.methods].join('\n').toLowerCase();
}

export function webhooksSection({ api }: ConsoleContext): Section {
  const filter = h('input', { type: 'search', id: newId('filter'), class: 'filter', autocomplete: 'off', spellcheck: 'false' });
  const kind = h('select', { id: newId('kind'), class: 'kind-filter' }, h('option', { value: '' }, 'All'),
    ...(['production', 'test', 'waiting'] as const).map((one) => h('option', { value: one }, KIND_NAMES[one])));
  const refresh = h('button', { type: 'button', class: 'refresh' }, 'Refresh');
  const count = h('p', { class: 'webhook-count', role: 'status' });
  const notes = h('div', { class: 'notes' });
  const problem = h('p', { class: 'issue', role: 'alert', hidden: true });
  const empty = h('p', { class: 'empty', hidden: true });
  const body = h('tbody');
  const table = scrollTable('Active webhooks', ['Kind', 'Workflow', 'Node', 'Methods', 'URL', 'Response', 'Guards', 'Expires'], body);
  let rows: { element: HTMLTableRowElement; text: string; kind: WebhookKindDto }[] = [];
  let loaded = false;

  const applyFilter = (): void => {
    const words = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      const visible = (kind.value === '' || row.kind === kind.value) && (words === '' || row.text.includes(words));
      row.element.hidden = !visible;
      if (visible) shown += 1;
    }
    count.textContent = `${shown} of ${rows.length} webhook${rows.length === 1 ? '' : 's'}`;
    table.hidden = shown === 0;
    empty.hidden = shown > 0 || !loaded;
    empty.textContent = rows.length === 0
      ? 'No active webhooks: no workflow is active, no test listen runs and no run waits for a call.'
      : 'No webhook matches the filter.';
  };

  const load = coalesced(async () => {
    refresh.disabled = true;
    const answer = await api.get<WebhookListing>('webhooks');
    refresh.disabled = false;
    if (!answer.ok) {
      problem.hidden = false;
      problem.textContent = `Could not load the webhooks: ${errorText(answer.error)}`;
      return;
    }
    problem.hidden = true;
    loaded = true;
    rows = answer.data.webhooks.map((row) => ({ element: webhookRow(row), text: searchText(row), kind: row.kind }));
    body.replaceChildren(...rows.map((row) => row.element));
    notes.replaceChildren(...answer.data.unlisted.map((unlisted) => h('p', { class: 'note unlisted', 'data-kind': unlisted }, UNLISTED_NOTES[unlisted])));
    applyFilter();
  });

  filter.addEventListener('input', applyFilter);
  kind.addEventListener('change', applyFilter);
  refresh.addEventListener('click', () => { void load(); });
  applyFilter();

  const element = h('section', { class: 'section webhooks', 'aria-labelledby': 'webhooks-title' },
    h('div', { class: 'section-head' }, h('h2', { id: 'webhooks-title' }, 'Webhooks'), refresh),
    h('p', { class: 'hint' }, 'Every address served now: production addresses of active workflows, test addresses while a listen runs, and the resume addresses of waiting runs (shown without their signature).'),
    h('div', { class: 'toolbar' },
      h('div', { class: 'cell' }, h('label', { for: filter.id }, 'Filter'), filter),
      h('div', { class: 'cell narrow' }, h('label', { for: kind.id }, 'Kind'), kind)),
    count, notes, problem, empty, table);
  return {
    element,
    show: () => { void load(); },
    event: (event) => { if (event.type === 'listen' && element.isConnected) void load(); },
    reconnected: () => { if (element.isConnected) void load(); },
  };
}
