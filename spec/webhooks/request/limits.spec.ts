/**
 * The request line and header bounds, checked on the request as Node hands it over: each limit is inclusive (a URL,
 * header count or header size exactly at the limit passes; one more is refused), and the URL measured is the one
 * the caller sent, before a host's mount stripped its prefix.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { checkRequestLimits, type RequestLimits } from '../../../lib/webhooks/request/limits.js';
import { WebhookError } from '../../../lib/core/errors.js';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../../lib/index.js';
import { workflow } from '../../support/workflows.js';
import { pipelined } from '../../support/raw-http.js';

const LIMITS: RequestLimits = { urlLength: 20, headerCount: 3, headerSize: 40 };

/** A request as Node's parser leaves it: url, and rawHeaders as [name, value, name, value, …]. */
function incoming(url: string, rawHeaders: string[] = [], originalUrl?: string): IncomingMessage {
  return { url, rawHeaders, ...(originalUrl === undefined ? {} : { originalUrl }) } as unknown as IncomingMessage;
}

function refusal(req: IncomingMessage): { code: string; status: number; message: string } | undefined {
  try {
    checkRequestLimits(req, LIMITS);
    return undefined;
  } catch (error) {
    expect(error).to.be.instanceOf(WebhookError);
    const { code, status, message } = error as WebhookError;
    return { code, status, message };
  }
}

describe('request limits', () => {
  it('lets a URL of exactly limits.urlLength characters through and answers 414 LIMIT_URL_LENGTH one character later', () => {
    expect(refusal(incoming(`/${'a'.repeat(19)}`))).to.equal(undefined);
    expect(refusal(incoming(`/${'a'.repeat(20)}`))).to.deep.include({ code: 'LIMIT_URL_LENGTH', status: 414 });
  });

  it('measures the URL the caller sent (originalUrl), not what is left after the host\'s mount path', () => {
    const mounted = incoming('/hook', [], `/api/automation/${'x'.repeat(10)}/hook`);
    expect(refusal(mounted)).to.deep.include({ code: 'LIMIT_URL_LENGTH' });
    // The other way round: a short original URL is not refused for a long stripped one.
    expect(refusal(incoming(`/${'a'.repeat(30)}`, [], '/short'))).to.equal(undefined);
  });

  it('counts headers, not raw name and value entries: exactly limits.headerCount pass, one more is 431 LIMIT_HEADERS', () => {
    const three = ['a', '1', 'b', '2', 'c', '3'];
    expect(refusal(incoming('/', three))).to.equal(undefined);
    const four = refusal(incoming('/', [...three, 'd', '4']));
    expect(four).to.deep.include({ code: 'LIMIT_HEADERS', status: 431 });
    expect(four?.message).to.include('more than 3 headers');
  });

  it('adds up the bytes of every header name and value: exactly limits.headerSize pass, one more byte is 431', () => {
    // 2 headers: 5 + 15 + 5 + 15 = 40 characters.
    const atLimit = ['x-one', 'v'.repeat(15), 'x-two', 'w'.repeat(15)];
    expect(refusal(incoming('/', atLimit))).to.equal(undefined);
    const over = refusal(incoming('/', ['x-one', 'v'.repeat(15), 'x-two', 'w'.repeat(16)]));
    expect(over).to.deep.include({ code: 'LIMIT_HEADERS', status: 431 });
    expect(over?.message).to.include('larger than the limit of 40 bytes');
  });
});

/**
 * The same bounds on requests as Node's parser really hands them over (the specs above build the request), several
 * pipelined on one connection to a node:http server: each request is measured on its own.
 */
describe('request limits on a real node:http server, requests pipelined on one connection', () => {
  it('answers each pipelined request by its own URL and headers: at the limits 200, a header too many 431, a longer URL 414', async () => {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'in', httpMethod: 'GET' }));
    const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), {
      limits: { urlLength: 40, headerCount: 3, headerSize: 40 }, publicUrl: 'https://hooks.example.com',
    });
    const server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      // Three headers of 40 bytes in all (Host 4 + 1, X-One 5 + 15, X-Two 5 + 10), a URL of 40 characters.
      const atLimits = 'Host: x\r\nX-One: vvvvvvvvvvvvvvv\r\nX-Two: wwwwwwwwww\r\n';
      const url = `/webhook/in?q=${'a'.repeat(26)}`;
      const answers = await pipelined((server.address() as AddressInfo).port, [
        `GET ${url} HTTP/1.1\r\n${atLimits}\r\n`,
        'GET /webhook/in HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n', // four small headers: over by count only
        `GET ${url}a HTTP/1.1\r\nHost: x\r\n\r\n`,
      ]);
      expect(url).to.have.length(40);
      expect(answers.map((answer) => answer.status)).to.deep.equal([200, 431, 414]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
