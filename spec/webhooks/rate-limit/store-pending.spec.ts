/**
 * The line of calls waiting for the registry to count them is bounded (`rateLimit.maxPending`): past it a call is
 * refused 503 with Retry-After at once, while the calls in the line are counted by the registry when it answers.
 */
import { expect } from 'chai';
import {
  createWebhookMiddleware, MemoryWebhookRegistry, type RateLimitCharge, type RateLimitResult,
} from '../../../lib/index.js';
import { eventually } from '../../support/registry-contract/instances.js';
import { listen, sendTo, type RawResponse } from '../../support/raw-http.js';
import { workflow } from '../../support/workflows.js';

/** A memory registry that holds every count until told to answer, as a store busy with other calls does. */
class HeldRegistry extends MemoryWebhookRegistry {
  asked = 0;
  #open: () => void = () => undefined;
  readonly #gate = new Promise<void>((resolve) => { this.#open = resolve; });

  answer(): void {
    this.#open();
  }

  override chargeRateLimits(charges: readonly RateLimitCharge[]): Promise<RateLimitResult> {
    this.asked += 1;
    return this.#gate.then(() => super.chargeRateLimits(charges));
  }
}

describe('calls waiting for the registry to count them', () => {
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  afterEach(async () => { await server?.close(); });

  it('refuses the calls past rateLimit.maxPending 503 with Retry-After at once, and lets the ones in line through once the registry counts them', async () => {
    const registry = new HeldRegistry();
    await registry.activate(workflow('wf', { path: 'hook', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 10, windowMs: 60_000 } } }));
    const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), {
      rateLimit: { maxPending: 3 }, logger: { warn: () => undefined, error: () => undefined },
    });
    server = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
    const port = server.port;
    const answered: RawResponse[] = [];
    const calls = Array.from({ length: 5 }, () => sendTo(port, { path: '/webhook/hook' }).then((answer) => { answered.push(answer); return answer; }));
    // Two answered while the registry has answered nothing: refused at once, not after waiting.
    await eventually(async () => answered.length === 2 && registry.asked === 3, 3000);
    expect(answered.map((answer) => [answer.status, answer.headers['retry-after'], (answer.body as { code?: string }).code])).to.deep.equal([
      [503, '1', 'REGISTRY_UNAVAILABLE'], [503, '1', 'REGISTRY_UNAVAILABLE'],
    ]);
    registry.answer();
    expect((await Promise.all(calls)).map((answer) => answer.status).sort()).to.deep.equal([200, 200, 200, 503, 503]);
    // The line is empty again: the next call is counted.
    expect((await sendTo(port, { path: '/webhook/hook' })).status).to.equal(200);
    expect(registry.asked).to.equal(4);
  });

  it('refuses a rateLimit.maxPending that is not a whole number from 1 to 1000000 when the middleware is made', () => {
    const make = (maxPending: unknown) => () => createWebhookMiddleware(new MemoryWebhookRegistry(), () => ({ items: [] }), { rateLimit: { maxPending: maxPending as number } });
    expect(make(0)).to.throw(TypeError, 'option rateLimit.maxPending must be a whole number from 1 to 1000000; got 0.');
    expect(make(1.5)).to.throw(TypeError, 'rateLimit.maxPending');
  });
});
