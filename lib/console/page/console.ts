/**
 * The console page's entry: asks the API for its overview (the CSRF token, what the host turned on), then draws the
 * header with the section links and shows the section the address names (`#webhooks`, `#listen/<workflowId>`,
 * `#calls`, `#history/<id>`, `#failed`, `#preview`). Sections are made when first shown; every made section hears
 * the page's one event stream from then on. The Preview's form renderer is loaded only when that section is first
 * shown.
 */
import type { ConsoleOverview } from '../protocol.js';
import { ConsoleApi, errorText } from './api.js';
import { callsSection } from './calls-tab.js';
import { h } from './dom.js';
import { failedSection } from './failed-tab.js';
import { historySection } from './history-tab.js';
import { startExpiryTicker } from './format.js';
import { ListenStore } from './listen-store.js';
import { listenSection } from './listen-tab.js';
import { openLiveStream } from './live.js';
import type { ConsoleContext, Section } from './section.js';
import { webhooksSection } from './webhooks-tab.js';

interface Tab {
  id: string;
  name: string;
  make(context: ConsoleContext): Section;
}

/** A section whose module is loaded when it is first shown. */
function lazySection(context: ConsoleContext, what: string, load: () => Promise<(context: ConsoleContext) => Section>): Section {
  const element = h('div', { class: 'lazy-section' }, h('p', { class: 'loading' }, `Loading the ${what}…`));
  let made: Section | undefined;
  let loading: Promise<void> | undefined;
  let argument: string | undefined;
  return {
    element,
    show(given) {
      argument = given;
      if (made !== undefined) return made.show(given);
      loading ??= load().then((make) => {
        made = make(context);
        element.replaceChildren(made.element);
        made.show(argument);
      }, () => {
        loading = undefined;
        element.replaceChildren(h('p', { class: 'issue', role: 'alert' }, `Could not load the ${what}’s script; reload the page to try again.`));
      });
    },
    event: (event) => made?.event?.(event),
    reconnected: () => made?.reconnected?.(),
  };
}

function tabsOf(overview: ConsoleOverview, store: ListenStore): Tab[] {
  const tabs: (Tab | false)[] = [
    { id: 'webhooks', name: 'Webhooks', make: webhooksSection },
    { id: 'listen', name: 'Listen', make: (context) => listenSection(context, store) },
    { id: 'calls', name: 'Recent calls', make: callsSection },
    overview.features.history && { id: 'history', name: 'History', make: historySection },
    overview.features.queue && { id: 'failed', name: 'Failed runs', make: failedSection },
    overview.features.preview && {
      id: 'preview', name: 'Preview',
      make: (context) => lazySection(context, 'preview', () => import('./preview-tab.js').then((module) => module.previewSection)),
    },
  ];
  return tabs.filter((tab): tab is Tab => tab !== false);
}

function routeOf(hash: string): { name: string; argument: string | undefined } {
  const [name = '', ...rest] = hash.replace(/^#/, '').split('/');
  let argument: string | undefined;
  try {
    argument = rest.length === 0 || rest.join('/') === '' ? undefined : decodeURIComponent(rest.join('/'));
  } catch {
    argument = undefined;
  }
  return { name, argument };
}

async function start(root: HTMLElement): Promise<void> {
  const base = (root.dataset.base ?? '').replace(/\/+$/, '');
  const alertText = h('span', { class: 'page-alert-text' });
  const alert = h('div', { class: 'page-alert', role: 'alert', hidden: true }, alertText,
    h('button', { type: 'button', class: 'dismiss', onclick: () => { alert.hidden = true; } }, 'Dismiss'));
  const api = new ConsoleApi(base, (message) => {
    alertText.textContent = message;
    alert.hidden = false;
  });
  root.append(alert);
  const answer = await api.get<ConsoleOverview>('overview');
  if (!answer.ok) {
    alertText.textContent = `The console could not start: ${errorText(answer.error)}`;
    alert.hidden = false;
    root.querySelector('.loading')?.remove();
    return;
  }
  const overview = answer.data;
  api.csrfToken = overview.csrfToken;
  const context: ConsoleContext = { api, overview };
  const store = new ListenStore();
  const tabs = tabsOf(overview, store);
  const made = new Map<string, Section>();

  const live = openLiveStream(`${base}/api/events`, {
    event(event) {
      store.event(event);
      for (const section of made.values()) section.event?.(event);
    },
    reconnected() {
      for (const section of made.values()) section.reconnected?.();
    },
  });

  const links = tabs.map((tab) => h('a', { href: `#${tab.id}`, 'data-tab': tab.id }, tab.name));
  const host = h('div', { class: 'section-host' });
  const header = h('header', { class: 'top' },
    h('div', { class: 'brand-row' },
      h('h1', { class: 'title' }, overview.title),
      live.element,
      overview.openApiUrl === undefined ? null
        : h('a', { class: 'openapi', href: overview.openApiUrl, target: '_blank', rel: 'noopener' }, 'OpenAPI document')),
    h('nav', { 'aria-label': 'Console sections' }, h('ul', {}, ...links.map((link) => h('li', {}, link)))));
  root.replaceChildren(header, alert, host);

  let shown: string | undefined;
  const route = (): void => {
    const { name, argument } = routeOf(location.hash);
    const tab = tabs.find((one) => one.id === name) ?? tabs[0]!;
    if (tab.id !== name) history.replaceState(null, '', `#${tab.id}`);
    for (const link of links) {
      if (link.dataset.tab === tab.id) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    let section = made.get(tab.id);
    if (section === undefined) {
      section = tab.make(context);
      made.set(tab.id, section);
    }
    if (shown !== tab.id) {
      host.replaceChildren(section.element);
      document.title = `${tab.name} · ${overview.title}`;
      shown = tab.id;
    }
    section.show(tab.id === name ? argument : undefined);
  };
  window.addEventListener('hashchange', route);
  route();
  startExpiryTicker();
}

const root = document.getElementById('console');
if (root !== null) void start(root);
