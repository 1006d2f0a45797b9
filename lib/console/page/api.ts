/**
 * The page's calls to the console's API: JSON in, JSON out, every failure (a refusal, a network error) returned as
 * a value with a message the page can show, so that no caller needs a try/catch. POSTs carry the CSRF token the
 * overview gave; a 401 or 403 (signed out, token gone stale) is said once for the whole page, in its alert.
 */
import type { ApiError } from '../protocol.js';

export type Answer<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: ApiError };

export function errorText(error: ApiError): string {
  return error.hint === undefined ? error.message : `${error.message} ${error.hint}`;
}

export class ConsoleApi {
  /** The console's mount path ('' at the root): every address of the API and its downloads starts with it. */
  readonly base: string;
  #csrfToken = '';
  readonly #refused: (message: string) => void;

  constructor(base: string, refused: (message: string) => void) {
    this.base = base;
    this.#refused = refused;
  }

  set csrfToken(token: string) {
    this.#csrfToken = token;
  }

  /** `path` is relative to the API: `webhooks`, `workflows/orders/listen`. */
  url(path: string): string {
    return `${this.base}/api/${path}`;
  }

  get<T>(path: string): Promise<Answer<T>> {
    return this.#call<T>('GET', path);
  }

  /** Always a JSON body (`{}` when there is nothing to say): the server reads POSTs as JSON only. */
  post<T>(path: string, body: unknown = {}): Promise<Answer<T>> {
    return this.#call<T>('POST', path, body);
  }

  async #call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer<T>> {
    let response: Response;
    try {
      response = await fetch(this.url(path), {
        method,
        headers: method === 'POST' ? { 'content-type': 'application/json', 'x-console-csrf': this.#csrfToken } : { accept: 'application/json' },
        body: method === 'POST' ? JSON.stringify(body) : null,
        credentials: 'same-origin',
      });
    } catch {
      return { ok: false, status: 0, error: { message: 'The console’s server did not answer; check that it is running and reachable.' } };
    }
    let data: unknown;
    let text = '';
    try {
      text = await response.text();
      data = text === '' ? undefined : JSON.parse(text);
    } catch {
      data = { message: text.trim() };
    }
    if (response.ok) return { ok: true, status: response.status, data: data as T };
    const error = typeof data === 'object' && data !== null && typeof (data as ApiError).message === 'string' && (data as ApiError).message !== ''
      ? data as ApiError
      : { message: `The server answered ${response.status} ${response.statusText}.` };
    if (response.status === 401 || response.status === 403) this.#refused(errorText(error));
    return { ok: false, status: response.status, error };
  }
}
