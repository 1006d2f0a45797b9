/**
 * How the page writes times and durations: a clock time for when a call arrived (the full date in its tooltip), a
 * duration in ms or s, and a relative time for when an address stops answering, kept current once a second.
 */
import { h } from './dom.js';

export function clockTime(at: number): HTMLTimeElement {
  const date = new Date(at);
  return h('time', { datetime: date.toISOString(), title: date.toLocaleString() }, date.toLocaleTimeString());
}

export function dateTime(at: number | undefined): HTMLElement | string {
  if (at === undefined) return '—';
  const date = new Date(at);
  return h('time', { datetime: date.toISOString() }, date.toLocaleString());
}

export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function relativeTime(at: number, now = Date.now()): string {
  const seconds = Math.round((at - now) / 1000);
  if (seconds <= 0) return 'expired';
  if (seconds < 90) return `in ${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `in ${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `in ${hours} h` : `in ${Math.round(hours / 24)} days`;
}

/** A time element that says how long until `at`, with the exact time in its tooltip; updated by the ticker below. */
export function expiryTime(at: number): HTMLTimeElement {
  const date = new Date(at);
  return h('time', { class: 'expires', datetime: date.toISOString(), title: date.toLocaleString(), 'data-at': at }, relativeTime(at));
}

let ticking = false;

/** Keeps every expiry time on the page current (one timer for the whole page). */
export function startExpiryTicker(): void {
  if (ticking) return;
  ticking = true;
  setInterval(() => {
    const now = Date.now();
    for (const element of document.querySelectorAll<HTMLTimeElement>('time.expires[data-at]')) {
      const text = relativeTime(Number(element.dataset.at), now);
      if (element.textContent !== text) element.textContent = text;
    }
  }, 1000);
}
