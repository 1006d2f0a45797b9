/**
 * The request line and header bounds, checked on the request as Node hands it over: each limit is inclusive (a URL,
 * header count or header size exactly at the limit passes; one more is refused), and the URL measured is the one
 * the caller sent, before a host's mount stripped its prefix.
 */
import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { checkRequestLimits, type RequestLimits } from '../../../lib/webhooks/request/limits.js';
import { WebhookError } from '../../../lib/core/errors.js';

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
