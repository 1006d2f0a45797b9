/**
 * Rate limits with the memory registry, in one process, over real HTTP in Express 5, Express 4 and Connect: a limited
 * address runs `limit` calls per window and answers the rest 429 RATE_LIMITED with Retry-After, RateLimit-Policy and
 * RateLimit (draft-ietf-httpapi-ratelimit-headers); the window passes and calls run again; keyed by caller address,
 * each caller has its own budget.
 */
import { expect } from 'chai';
import type { IncomingHttpHeaders } from 'node:http';
import {
  createWebhookMiddleware, MemoryWebhookRegistry, type WebhookEvent, type WebhookMiddlewareOptions, type WorkflowWebhooks,
} from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { withFakeTimers } from '../../support/fake-clock.js';
import { listen, sendTo, type RawResponse } from '../../support/raw-http.js';
import { workflow } from '../../support/workflows.js';

/** What a caller needs of a 429: status, code and the four headers. */
function refusalOf(res: RawResponse): unknown {
  const { headers } = res;
  return [res.status, (res.body as { code?: string }).code, headers['retry-after'], headers['ratelimit-policy'], headers.ratelimit];
}

const rateHeaders = (headers: IncomingHttpHeaders): unknown => [headers['ratelimit-policy'], headers.ratelimit];

for (const host of HOSTS) {
  describe(`rate limits in ${host.name}, memory registry`, function () {
    this.timeout(10_000);
    let runs: number;
    let server: Awaited<ReturnType<typeof listen>>;

    async function serve(limited: WorkflowWebhooks, options: WebhookMiddlewareOptions = {}): Promise<void> {
      const registry = new MemoryWebhookRegistry();
      await registry.activate(limited);
      server = await listen(host.build(createWebhookMiddleware(registry, () => {
        runs += 1;
        return { items: [{ json: { ran: runs } }] };
      }, options)));
    }

    const call = (path: string, from?: string): Promise<RawResponse> =>
      sendTo(server.port, { path: `${BASE}/webhook/${path}`, headers: { 'content-type': 'application/json' }, chunks: ['{"n":1}'], localAddress: from });

    beforeEach(() => { runs = 0; });
    afterEach(async () => { await server?.close(); });

    it('runs 10 of 30 calls inside one window, answers the other 20 with 429 and the rate limit headers, and runs calls again once the window passed', async () => {
      await serve(workflow('orders', { path: 'orders', httpMethod: 'POST', responseMode: 'lastNode' }, { settings: { rateLimit: { limit: 10, windowMs: 1000 } } }));
      // The memory registry measures windows with performance.now(): on a fake clock no window passes while 30 calls
      // are answered on a slow machine, and the clock is moved past it after.
      await withFakeTimers(async (clock) => {
        const answers = await Promise.all(Array.from({ length: 30 }, () => call('orders')));
        const ran = answers.filter((res) => res.status === 200);
        const refused = answers.filter((res) => res.status === 429);
        expect([ran.length, refused.length, runs]).to.deep.equal([10, 20, 10]);
        for (const res of refused) expect(refusalOf(res)).to.deep.equal([429, 'RATE_LIMITED', '1', '"address-1s";q=10;w=1', '"address-1s";r=0;t=1']);
        // Every call let through says how many more the window takes: 9 down to 0, each once.
        expect(ran.map((res) => res.headers.ratelimit).sort()).to.deep.equal(Array.from({ length: 10 }, (_, left) => `"address-1s";r=${left};t=1`).sort());
        expect((refused[0]?.body as { message: string }).message)
          .to.equal('Too many calls: this webhook takes 10 calls per 1 s from all callers together. Try again in 1 s.');
        clock.tick(1000);
        const later = await call('orders');
        expect([later.status, later.headers.ratelimit, runs]).to.deep.equal([200, '"address-1s";r=9;t=1', 11]);
      }, ['performance']);
    });

    it('gives each caller address its own budget with key "ip"', async () => {
      await serve(workflow('orders', { path: 'orders', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 2, windowMs: 60_000, key: 'ip' } } }));
      const first = [await call('orders', '127.0.0.1'), await call('orders', '127.0.0.1'), await call('orders', '127.0.0.1')];
      const second = [await call('orders', '127.0.0.2'), await call('orders', '127.0.0.2'), await call('orders', '127.0.0.2')];
      expect(first.map((res) => res.status)).to.deep.equal([200, 200, 429]);
      expect(second.map((res) => res.status)).to.deep.equal([200, 200, 429]);
      expect(rateHeaders(second[0]?.headers ?? {})).to.deep.equal(['"ip-60s";q=2;w=60', '"ip-60s";r=1;t=60']);
      expect(refusalOf(second[2] as RawResponse)).to.deep.equal([429, 'RATE_LIMITED', '60', '"ip-60s";q=2;w=60', '"ip-60s";r=0;t=60']);
      expect(runs).to.equal(4);
    });
  });
}
