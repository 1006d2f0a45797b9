/**
 * The page's one server-sent event stream and the indicator that says whether it is live. The browser reconnects by
 * itself after a break; a stream the server refused (it then stays closed) is opened again after a pause. After any
 * break the sections load again what the stream may have said meanwhile.
 */
import type { ConsoleEvent } from '../protocol.js';
import { h } from './dom.js';

const EVENT_TYPES: ConsoleEvent['type'][] = ['call', 'listen', 'countdown', 'jobs', 'replay'];
const REOPEN_MS = 5000;

export interface LiveStream {
  /** The indicator: "Live", "Reconnecting…". */
  element: HTMLElement;
}

export function openLiveStream(url: string, handlers: { event(event: ConsoleEvent): void; reconnected(): void }): LiveStream {
  const element = h('span', { class: 'live', 'data-state': 'connecting', title: 'Whether the page hears the server’s news as it happens' }, 'Connecting…');
  const say = (state: 'live' | 'reconnecting', text: string): void => {
    element.dataset.state = state;
    if (element.textContent !== text) element.textContent = text;
  };
  let broken = false;

  const open = (): void => {
    const source = new EventSource(url);
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        let event: ConsoleEvent;
        try {
          event = JSON.parse((message as MessageEvent<string>).data) as ConsoleEvent;
        } catch {
          return;
        }
        handlers.event(event);
      });
    }
    source.addEventListener('open', () => {
      say('live', 'Live');
      if (broken) handlers.reconnected();
      broken = false;
    });
    source.addEventListener('error', () => {
      broken = true;
      say('reconnecting', 'Reconnecting…');
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        setTimeout(open, REOPEN_MS);
      }
    });
  };
  open();
  return { element };
}
