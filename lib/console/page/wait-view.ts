/**
 * A test run that waits for a call: its resume address (copyable), until when the address works, and a button that
 * calls it from this page as the outside world would (with the first method the wait accepts), with the answer that
 * call got. The page may only connect to its own origin, so the button is there when the address is on it; the
 * server pushes the wait's changes: resumed by a call (from here or elsewhere), expired.
 */
import type { WaitDto } from '../protocol.js';
import { announce, copyButton, h } from './dom.js';

export interface WaitView {
  element: HTMLElement;
  /** The wait as the server says it is now; null hides the box (a new listen started). */
  show(wait: WaitDto | null): void;
}

function statusText(wait: WaitDto): string {
  const until = new Date(wait.expiresAt).toLocaleString();
  if (wait.status === 'resumed') return 'A call to the resume address resumed the run.';
  if (wait.status === 'expired') return 'Nobody called the resume address in time, so it expired and the run will not go on.';
  return wait.form === 'inRun'
    ? `The run is waiting for a call at its resume address, until ${until}.`
    : `The run suspended itself; a call to its resume address starts it again, until ${until}.`;
}

/** What the call answered: its body, pretty-printed when it is JSON. */
async function answerText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function sameOrigin(url: string): boolean {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

export function waitView(): WaitView {
  let current: WaitDto | null = null;
  const status = h('p', { class: 'wait-status', role: 'status' });
  const url = h('code', { class: 'url' });
  const methods = h('span', { class: 'methods' });
  const callButton = h('button', { type: 'button', class: 'primary call-resume' }, 'Call resume address');
  const elsewhere = h('p', { class: 'hint', hidden: true }, 'The resume address is on another origin than this console, so call it from outside (with curl, say).');
  const answerStatus = h('p', { class: 'resume-answer-status', hidden: true });
  const answer = h('pre', { class: 'resume-answer', hidden: true, tabindex: 0 });
  const element = h('section', { class: 'wait-box', 'aria-labelledby': 'wait-title', hidden: true },
    h('h4', { id: 'wait-title' }, 'Waiting run'),
    status,
    h('p', { class: 'address', 'data-address': 'resume' }, methods, ' ', url, ' ', copyButton(() => url.textContent ?? '', 'resume address')),
    callButton, elsewhere, answerStatus, answer);

  callButton.addEventListener('click', () => {
    if (current === null) return;
    const method = current.methods[0] ?? 'POST';
    const withBody = method !== 'GET' && method !== 'HEAD';
    callButton.disabled = true;
    void fetch(current.resumeUrl, {
      method,
      credentials: 'omit',
      headers: withBody ? { 'content-type': 'application/json' } : {},
      body: withBody ? JSON.stringify({ calledFrom: 'the webhook console' }) : null,
    }).then(async (response) => {
      answerStatus.textContent = `The resume address answered ${response.status} ${response.statusText}.`;
      answer.textContent = await answerText(response);
    }, () => {
      answerStatus.textContent = 'The resume address did not answer.';
      answer.textContent = '';
    }).finally(() => {
      answerStatus.hidden = false;
      answer.hidden = answer.textContent === '';
      announce(answerStatus.textContent ?? '');
      callButton.disabled = current?.status !== 'waiting';
    });
  });

  return {
    element,
    show(wait) {
      const fresh = wait !== null && wait.waitId !== current?.waitId;
      current = wait;
      element.hidden = wait === null;
      if (wait === null) return;
      status.textContent = statusText(wait);
      url.textContent = wait.resumeUrl;
      methods.replaceChildren(...wait.methods.map((method) => h('span', { class: 'method' }, method)));
      const callable = sameOrigin(wait.resumeUrl);
      callButton.hidden = !callable;
      elsewhere.hidden = callable;
      callButton.disabled = wait.status !== 'waiting';
      if (fresh) {
        answerStatus.hidden = true;
        answer.hidden = true;
      }
    },
  };
}
