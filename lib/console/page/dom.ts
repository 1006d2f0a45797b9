/**
 * Small DOM helpers for the console's page: an element builder (text is always set as text, never parsed), unique
 * ids, text only screen readers read, a copy button, an announcer, and the few HTML tags a description or hint may
 * use, taken over from parsed markup one by one so that a pasted description cannot run script.
 */

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined | null | EventListener>;

/** Builds an element: `on…` keys are listeners, `true` sets a boolean attribute, false/null/undefined leave it out. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value);
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

let counter = 0;
export function newId(prefix = 'f'): string {
  counter += 1;
  return `${prefix}${counter}`;
}

/** Text for screen readers only, e.g. which address a Copy button copies. */
export function screenReaderText(text: string): HTMLSpanElement {
  return h('span', { class: 'vh' }, text);
}

const announcer = (): HTMLElement => {
  let region = document.getElementById('announcer');
  if (region === null) {
    region = h('p', { id: 'announcer', class: 'vh', 'aria-live': 'polite' });
    document.body.append(region);
  }
  return region;
};

/** Says something to screen-reader users without moving focus. */
export function announce(text: string): void {
  const region = announcer();
  region.textContent = '';
  // A change the next frame is announced even when the text repeats.
  requestAnimationFrame(() => { region.textContent = text; });
  // Cleared once said, so that the page's text is not there twice.
  setTimeout(() => { if (region.textContent === text) region.textContent = ''; }, 3000);
}

/**
 * A Copy button for a text. `what` completes its name for screen readers ("Copy test address"); with `label`, the
 * button shows that label instead ("Copy curl"), which is then its whole name.
 */
export function copyButton(text: () => string, what: string, label?: string): HTMLButtonElement {
  const shown = label ?? 'Copy';
  const caption = h('span', {}, shown);
  const button = h('button', { type: 'button', class: 'copy' }, caption, label === undefined ? screenReaderText(` ${what}`) : null);
  button.addEventListener('click', () => {
    void copyText(text()).then((copied) => {
      caption.textContent = copied ? 'Copied' : 'Select and copy';
      announce(copied ? `Copied the ${what}` : `Could not copy the ${what}; select it and copy it`);
      setTimeout(() => { caption.textContent = shown; }, 1500);
    });
  });
  return button;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Without clipboard permission (an embedded page, an old browser) fall back to a selection.
    const area = h('textarea', { class: 'vh', readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

const KEPT_TAGS = new Set(['B', 'STRONG', 'I', 'EM', 'CODE', 'BR', 'A']);

/** Copies the harmless part of an HTML message: text, a few inline tags, and links to http(s) addresses. */
export function safeHtml(html: string): DocumentFragment {
  const parsed = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  const copy = (from: Node, to: Node): void => {
    for (const node of from.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) {
        to.appendChild(document.createTextNode(node.textContent ?? ''));
      } else if (node instanceof Element && KEPT_TAGS.has(node.tagName)) {
        const href = node.getAttribute('href') ?? '';
        const kept = node.tagName === 'A'
          ? h('a', /^https?:\/\//i.test(href) ? { href, target: '_blank', rel: 'noopener noreferrer' } : {})
          : document.createElement(node.tagName.toLowerCase());
        copy(node, kept);
        to.appendChild(kept);
      } else if (node instanceof Element) {
        copy(node, to);
      }
    }
  };
  const fragment = document.createDocumentFragment();
  copy(parsed.body, fragment);
  return fragment;
}

export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

/**
 * A table in a wrapper of its own that scrolls sideways when the table is wider than the screen, so that the page as
 * a whole never does; the wrapper can take focus, so a keyboard can scroll it too. Each cell carries its column's
 * name (`data-label`), the rows it holds now and those added later: on a narrow screen the stylesheet shows each row
 * as a card of labelled cells instead of columns that start off-screen.
 */
export function scrollTable(label: string, headers: string[], body: HTMLTableSectionElement): HTMLElement {
  const labelRows = (): void => {
    for (const row of body.rows) {
      for (const [index, cell] of [...row.cells].entries()) cell.dataset.label = headers[index] ?? '';
    }
  };
  labelRows();
  new MutationObserver(labelRows).observe(body, { childList: true });
  return h('div', { class: 'table-wrap', role: 'region', 'aria-label': label, tabindex: 0 },
    h('table', {}, h('caption', { class: 'vh' }, label),
      h('thead', {}, h('tr', {}, ...headers.map((header) => h('th', { scope: 'col' }, header)))), body));
}
