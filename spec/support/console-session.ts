/**
 * A console page's session as the specs drive it over HTTP: the CSRF cookie and token from the overview, JSON GETs,
 * POSTs that carry the token, and the event stream read as parsed events.
 */
import { CONSOLE_BASE, type ConsoleApp } from './console-app.js';

export interface ConsoleSession {
  get<T>(path: string): Promise<T>;
  post(path: string, body?: unknown): Promise<Response>;
  /** Opens the event stream; `next(type)` resolves with the next event of that type (data parsed). */
  events(): Promise<{ next<T>(type: string, match?: (data: T) => boolean, timeoutMs?: number): Promise<T>; close(): void }>;
}

export async function consoleSession(app: ConsoleApp): Promise<ConsoleSession> {
  const base = `${app.origin}${CONSOLE_BASE}`;
  const overview = await fetch(`${base}/api/overview`);
  const cookie = (overview.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const { csrfToken } = await overview.json() as { csrfToken: string };
  return {
    async get<T>(path: string) {
      const answer = await fetch(`${base}${path}`, { headers: { cookie } });
      if (!answer.ok) throw new Error(`GET ${path} answered ${answer.status}: ${await answer.text()}`);
      return answer.json() as Promise<T>;
    },
    post: (path, body = {}) => fetch(`${base}${path}`, {
      method: 'POST', headers: { cookie, 'x-console-csrf': csrfToken, 'content-type': 'application/json' }, body: JSON.stringify(body),
    }),
    async events() {
      const controller = new AbortController();
      const answer = await fetch(`${base}/api/events`, { headers: { cookie }, signal: controller.signal });
      const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      const queue: { type: string; data: unknown }[] = [];
      let buffer = '';
      const pull = async (): Promise<void> => {
        const { value, done } = await reader.read();
        if (done) throw new Error('The event stream ended');
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (type !== undefined && data !== undefined) queue.push({ type, data: JSON.parse(data) as unknown });
        }
      };
      return {
        async next<T>(type: string, match: (data: T) => boolean = () => true, timeoutMs = 5000): Promise<T> {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const index = queue.findIndex((event) => event.type === type && match(event.data as T));
            if (index !== -1) return (queue.splice(index, 1)[0] as { data: T }).data;
            if (Date.now() > deadline) throw new Error(`No ${type} event within ${timeoutMs} ms`);
            await Promise.race([pull(), new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())))]);
          }
        },
        close: () => controller.abort(),
      };
    },
  };
}
