/**
 * The page's calls to its server: JSON in, JSON out, and every failure (a refusal, a network error) as a value
 * with a message the page can show, so that no caller needs a try/catch.
 */
import type { ApiError } from '../protocol.js';

export type Answer<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: ApiError };

export async function call<T>(method: string, url: string, body?: unknown): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    return { ok: false, status: 0, error: { message: 'The server did not answer; is the example app still running?' } };
  }
  const text = await response.text();
  let data: unknown;
  try {
    data = text === '' ? undefined : JSON.parse(text);
  } catch {
    data = { message: text.trim() };
  }
  if (response.ok) return { ok: true, status: response.status, data: data as T };
  const error = typeof data === 'object' && data !== null && typeof (data as ApiError).message === 'string'
    ? data as ApiError
    : { message: `The server answered ${response.status} ${response.statusText}` };
  return { ok: false, status: response.status, error };
}

export const getJson = <T>(url: string): Promise<Answer<T>> => call<T>('GET', url);
