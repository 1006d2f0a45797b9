/**
 * Rate limit policies as workflows and the middleware give them: checked once (activation, factory) into a complete,
 * frozen form that every instance resolves to the same, with each mistake named where it is.
 */
import { expect } from 'chai';
import { MemoryWebhookRegistry, WebhookError, createWebhookMiddleware, type WorkflowWebhooks } from '../../lib/index.js';
import { describeRateLimit, rateLimitsOf, resolveRateLimits } from '../../lib/core/rate-limits.js';

function fails(path: string, expected: string, value: unknown): never {
  throw new Error(`${path} must be ${expected}; got ${JSON.stringify(value)}`);
}

const resolve = (value: unknown): unknown => resolveRateLimits(value, 'settings.rateLimit', fails);

function withLimit(rateLimit: unknown): WorkflowWebhooks {
  return { workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'orders', httpMethod: 'POST' } }], settings: { rateLimit } } as WorkflowWebhooks;
}

async function activationRefusal(rateLimit: unknown): Promise<WebhookError> {
  try {
    await new MemoryWebhookRegistry().activate(withLimit(rateLimit));
  } catch (error) {
    return error as WebhookError;
  }
  throw new Error('the workflow was activated');
}

describe('rate limit policies', () => {
  it('complete a policy: key address and a name from key and window by default, a header name in lower case', () => {
    expect(resolve({ limit: 10, windowMs: 60_000 })).to.deep.equal([{ name: 'address-60s', limit: 10, windowMs: 60_000, key: 'address' }]);
    expect(resolve([{ limit: 5, windowMs: 1500, key: 'ip' }, { limit: 100, windowMs: 3_600_000, key: 'X-Api-Key', name: 'per.key_hour' }])).to.deep.equal([
      { name: 'ip-2s', limit: 5, windowMs: 1500, key: 'ip' },
      { name: 'per.key_hour', limit: 100, windowMs: 3_600_000, key: 'x-api-key' },
    ]);
    expect(Object.isFrozen(resolve({ limit: 1, windowMs: 1000 }))).to.equal(true);
  });

  it('keep false (a workflow opting out of the default) and nothing as they are, and refuse false where no opt-out is meant', () => {
    expect(resolve(false)).to.equal(false);
    expect(resolve(undefined)).to.equal(undefined);
    expect(() => resolveRateLimits(false, 'rateLimit.default', fails, false)).to.throw('rateLimit.default must be a policy { limit, windowMs, key? } or a list of 1 to 4 of them; got false');
  });

  for (const [given, message] of [
    [{ limit: 0, windowMs: 1000 }, 'settings.rateLimit.limit must be a whole number of calls, at least 1; got 0'],
    [{ limit: 2.5, windowMs: 1000 }, 'settings.rateLimit.limit must be a whole number of calls, at least 1; got 2.5'],
    [{ limit: 1, windowMs: 999 }, 'settings.rateLimit.windowMs must be a whole number of milliseconds from 1000 to 86400000 (one day); got 999'],
    [{ limit: 1, windowMs: 86_400_001 }, 'settings.rateLimit.windowMs must be a whole number of milliseconds from 1000 to 86400000 (one day); got 86400001'],
    [{ limit: 1 }, 'settings.rateLimit.windowMs must be'],
    [{ limit: 1, windowMs: 1000, key: 'x api key' }, 'settings.rateLimit.key must be "address", "ip" or a request header name; got "x api key"'],
    [{ limit: 1, windowMs: 1000, key: 7 }, 'settings.rateLimit.key must be'],
    [{ limit: 1, windowMs: 1000, name: 'has "quotes"' }, 'settings.rateLimit.name must be a name of letters, digits, "_", "." and "-" (64 at most)'],
    [{ limit: 1, windowMs: 1000, burst: 5 }, 'settings.rateLimit.burst must be absent (a policy has limit, windowMs, key and name); got 5'],
    [[], 'settings.rateLimit must be a policy { limit, windowMs, key? }, a list of 1 to 4 of them, or false; got []'],
    [Array.from({ length: 5 }, () => ({ limit: 1, windowMs: 1000 })), 'a list of 1 to 4 of them'],
    [[{ limit: 1, windowMs: 1000 }, { limit: 2, windowMs: 1000 }], 'settings.rateLimit[1].name must be unique among the policies (two are named "address-1s": give one a name)'],
    [[{ limit: 1, windowMs: 1000 }, 'fast'], 'settings.rateLimit[1] must be an object { limit, windowMs, key?, name? }; got "fast"'],
    ['10/minute', 'settings.rateLimit must be an object'],
  ] as const) {
    it(`refuse ${JSON.stringify(given)}, naming where`, () => {
      expect(() => resolve(given)).to.throw(message);
    });
  }

  it('accept the edges, 4 policies, a window of one day and a limit of a billion calls, and refuse one beyond each', async () => {
    const four = Array.from({ length: 4 }, (_, index) => ({ limit: 1, windowMs: 1000, name: `p${index}` }));
    expect(resolve(four)).to.have.length(4);
    expect(() => resolve([...four, { limit: 1, windowMs: 1000, name: 'p4' }])).to.throw('settings.rateLimit must be a policy { limit, windowMs, key? }, a list of 1 to 4 of them, or false');
    expect(resolve({ limit: 1_000_000_000, windowMs: 86_400_000 })).to.deep.equal([{ name: 'address-86400s', limit: 1_000_000_000, windowMs: 86_400_000, key: 'address' }]);
    expect(() => resolve({ limit: 1_000_000_001, windowMs: 1000 })).to.throw('settings.rateLimit.limit must be a whole number of calls, at least 1; got 1000000001');
    expect(() => resolve({ limit: 1, windowMs: 86_400_001 })).to.throw('settings.rateLimit.windowMs must be a whole number of milliseconds from 1000 to 86400000');
    // And as a workflow activates them.
    const [webhook] = await new MemoryWebhookRegistry().activate(withLimit([...four.slice(1), { limit: 1_000_000_000, windowMs: 86_400_000 }]));
    expect(webhook?.settings?.rateLimit).to.have.length(4);
  });

  it('are refused with the workflow at activation, WEBHOOK_INVALID_NODE naming the workflow and the setting', async () => {
    const error = await activationRefusal({ limit: 10, windowMs: 10 });
    expect([error.code, error.message]).to.deep.equal(['WEBHOOK_INVALID_NODE',
      'Workflow "wf": settings.rateLimit.windowMs must be a whole number of milliseconds from 1000 to 86400000 (one day); got 10.']);
    expect(error.hint).to.match(/limit calls per windowMs milliseconds/);
    expect(await new MemoryWebhookRegistry().list()).to.deep.equal([]);
  });

  it('travel with the activated workflow in their complete form, which activates again to the same', async () => {
    const [webhook] = await new MemoryWebhookRegistry().activate(withLimit({ limit: 3, windowMs: 2000, key: 'IP' }));
    const held = webhook?.settings?.rateLimit;
    expect(held).to.deep.equal([{ name: 'ip-2s', limit: 3, windowMs: 2000, key: 'ip' }]);
    const [again] = await new MemoryWebhookRegistry().activate(JSON.parse(JSON.stringify(withLimit(held))) as WorkflowWebhooks);
    expect(again?.settings?.rateLimit).to.deep.equal(held);
  });

  it('are refused at the factory as a TypeError naming the option', () => {
    const make = (rateLimit: unknown) => () => createWebhookMiddleware(new MemoryWebhookRegistry(), () => ({ items: [] }), { rateLimit } as never);
    expect(make({ default: { limit: -1, windowMs: 1000 } })).to.throw(TypeError, 'workflow-webhooks: option rateLimit.default.limit must be a whole number of calls, at least 1; got -1.');
    expect(make({ default: false })).to.throw(TypeError, 'option rateLimit.default must be a policy');
    expect(make({ headers: 'sometimes' })).to.throw(TypeError, 'option rateLimit.headers must be "always" or "refused"; got "sometimes".');
    expect(make({ storeFailure: 'open' })).to.throw(TypeError, 'option rateLimit.storeFailure must be "local" or "refuse"; got "open".');
    expect(make({ ipv6Prefix: 0 })).to.throw(TypeError, 'option rateLimit.ipv6Prefix must be a whole number from 1 to 128; got 0.');
    expect(make({ maxKeys: 0 })).to.throw(TypeError, 'option rateLimit.maxKeys must be a whole number from 1 to 10000000; got 0.');
    expect(make({ perMinute: 5 })).to.throw(TypeError, 'unknown option rateLimit.perMinute');
    expect(make('10/minute')).to.throw(TypeError, 'option rateLimit must be an object');
    expect(() => new MemoryWebhookRegistry({ maxRateLimitBudgets: 0 })).to.throw(TypeError, 'maxRateLimitBudgets must be a whole number of at least 1; got 0');
  });

  it('hold at an address from its workflow, else from the middleware\'s default, and not at all when the workflow opts out', () => {
    const defaults = resolveRateLimits({ limit: 1, windowMs: 1000 }, 'd', fails) || undefined;
    const own = resolveRateLimits({ limit: 2, windowMs: 1000, key: 'ip' }, 's', fails);
    expect(rateLimitsOf({}, defaults)).to.equal(defaults);
    expect(rateLimitsOf({ settings: { rateLimit: own } }, defaults)).to.equal(own);
    expect(rateLimitsOf({ settings: { rateLimit: false } }, defaults)).to.equal(undefined);
    expect(rateLimitsOf({}, undefined)).to.equal(undefined);
  });

  it('are said in words, naming a header key by its name', () => {
    const [ip, header, one] = resolveRateLimits([{ limit: 10, windowMs: 60_000, key: 'ip' }, { limit: 5, windowMs: 1000, key: 'X-Tenant' }, { limit: 1, windowMs: 1000, name: 'one' }], 'p', fails) || [];
    expect([ip, header, one].map((policy) => describeRateLimit(policy as never))).to.deep.equal([
      '10 calls per 60 s from each caller address', '5 calls per 1 s for each value of the x-tenant header', '1 call per 1 s from all callers together',
    ]);
  });
});
