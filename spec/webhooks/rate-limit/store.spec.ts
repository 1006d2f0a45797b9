/**
 * When the registry cannot count (its store is away, or it has no `chargeRateLimits`): a limited call is counted in
 * this process (`storeFailure: 'local'`, the default), or refused 503 (`'refuse'`); the host's logger hears of the
 * outage once, with its cause, and once of its end. A rate limit never silently stops holding.
 */
import { expect } from 'chai';
import {
  createWebhookMiddleware, MemoryWebhookRegistry, type RateLimitCharge, type RateLimitResult, type WebhookMiddlewareOptions, type WebhookRegistry,
} from '../../../lib/index.js';
import { listen, sendTo } from '../../support/raw-http.js';
import { workflow } from '../../support/workflows.js';

/** A memory registry whose shared counting can be taken away, as a Redis outage takes it. */
class FlakyRegistry extends MemoryWebhookRegistry {
  down = false;
  asked = 0;

  override chargeRateLimits(charges: readonly RateLimitCharge[]): Promise<RateLimitResult> {
    this.asked += 1;
    if (this.down) return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    return super.chargeRateLimits(charges);
  }
}

const LIMITED = workflow('wf', { path: 'hook', httpMethod: 'POST' }, { settings: { rateLimit: { limit: 2, windowMs: 60_000 } } });

describe('rate limits when the registry cannot count', () => {
  let logged: [string, Record<string, unknown>, string | undefined][];
  let server: Awaited<ReturnType<typeof listen>>;

  async function serve(registry: WebhookRegistry, options: WebhookMiddlewareOptions = {}): Promise<void> {
    await registry.activate(LIMITED);
    const middleware = createWebhookMiddleware(registry, () => ({ items: [] }), {
      logger: { warn: (fields, message) => logged.push(['warn', fields, message]), error: (fields, message) => logged.push(['error', fields, message]) },
      ...options,
    });
    server = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
  }

  const statuses = async (count: number): Promise<number[]> => {
    const answers = [];
    for (let call = 0; call < count; call += 1) answers.push((await sendTo(server.port, { path: '/webhook/hook' })).status);
    return answers;
  };

  beforeEach(() => { logged = []; });
  afterEach(async () => { await server?.close(); });

  it('counts in this process while the store fails, tells the logger once with the cause, and once when it counts again', async () => {
    const registry = new FlakyRegistry();
    await serve(registry);
    registry.down = true;
    expect(await statuses(4)).to.deep.equal([200, 200, 429, 429]);
    // One try, then a second without asking: an unreachable store does not make every call wait for its timeout.
    expect(registry.asked).to.equal(1);
    const warnings = logged.filter(([level]) => level === 'warn');
    expect(warnings).to.have.length(1);
    expect(warnings[0]?.[2]).to.equal('workflow-webhooks: the registry could not count a rate-limited call; until it can, each instance counts its own calls');
    expect((warnings[0]?.[1].err as { message: string }).message).to.equal('connect ECONNREFUSED 127.0.0.1:6379');
    registry.down = false;
    await new Promise((resolve) => setTimeout(resolve, 1050));
    // A second on, the next call is still counted here (its budget is spent) and asks the store in the background.
    expect(await statuses(1)).to.deep.equal([429]);
    expect(registry.asked).to.equal(2);
    expect(logged.at(-1)?.[2]).to.match(/^workflow-webhooks: the registry counts rate limits again, after \d+ ms$/);
    // The store counts again: it holds the background call only, so the next one goes through.
    expect(await statuses(1)).to.deep.equal([200]);
    expect(registry.asked).to.equal(3);
  });

  it('refuses limited calls 503 REGISTRY_UNAVAILABLE with Retry-After while the store fails, with storeFailure "refuse"', async () => {
    const registry = new FlakyRegistry();
    await serve(registry, { rateLimit: { storeFailure: 'refuse' } });
    registry.down = true;
    const refused = await sendTo(server.port, { path: '/webhook/hook' });
    expect([refused.status, (refused.body as { code: string }).code, refused.headers['retry-after']]).to.deep.equal([503, 'REGISTRY_UNAVAILABLE', '1']);
    expect(logged.filter(([level]) => level === 'warn').map(([, , message]) => message))
      .to.deep.equal(['workflow-webhooks: the registry could not count a rate-limited call; until it can, calls to rate-limited addresses are refused 503']);
  });

  it('counts in this process with a registry that has no chargeRateLimits, and says so once', async () => {
    const memory = new MemoryWebhookRegistry();
    const own: WebhookRegistry = {
      activate: (one) => memory.activate(one), deactivate: (id) => memory.deactivate(id), lookup: (kind, method, path) => memory.lookup(kind, method, path),
      list: () => memory.list(), listenForTest: (one, options) => memory.listenForTest(one, options), claimTestCall: (webhook) => memory.claimTestCall(webhook),
    };
    await serve(own);
    expect(await statuses(3)).to.deep.equal([200, 200, 429]);
    expect(logged.map(([, , message]) => message)).to.deep.equal([
      'workflow-webhooks: the registry has no chargeRateLimits(), so rate limits are counted in this process: with several instances, each lets the limit through. Told once.',
    ]);
  });

  it('treats an answer that is not { allowed, remaining, resetMs } as a failure of the store', async () => {
    class Broken extends MemoryWebhookRegistry {
      override chargeRateLimits(): Promise<RateLimitResult> { return Promise.resolve({ allowed: true } as RateLimitResult); }
    }
    await serve(new Broken());
    expect(await statuses(3)).to.deep.equal([200, 200, 429]);
    expect((logged[0]?.[1].err as { message: string }).message).to.match(/chargeRateLimits\(\) resolved with something other than/);
  });
});

