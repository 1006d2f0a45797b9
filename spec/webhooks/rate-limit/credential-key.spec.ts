/**
 * A rate limit keyed by the header a node's guard checks counts the caller the guard verified, not the way the header
 * was spelt: one Basic credential written 60 ways (case of `Basic`, spaces, padding) or one JWT subject written 20
 * ways (case of `Bearer`, spaces, several tokens) is one budget. A header no guard checks is counted by its
 * normalised value, so spellings of one Basic credential are one budget there too. Over HTTP, node:http and the
 * memory registry.
 */
import { expect } from 'chai';
import { SignJWT } from 'jose';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddlewareOptions, type WorkflowWebhooks } from '../../../lib/index.js';
import { listen, sendTo, type RawResponse } from '../../support/raw-http.js';
import { workflow } from '../../support/workflows.js';

const USER = 'ops';
const PASSWORD = 'hunter-secret';
const JWT_SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const LIMIT = 3;

/** One user:password (its base64 ends in one `=`) written 60 ways a guard accepts: scheme case × spaces × padding. */
function basicSpellings(user: string, password: string): string[] {
  const encoded = Buffer.from(`${user}:${password}`).toString('base64');
  const bare = encoded.replace(/=+$/, '');
  const schemes = ['Basic', 'basic', 'BASIC', 'bAsIc', 'BaSiC'];
  const gaps = [' ', '  ', '\t', ' \t '];
  const paddings = [encoded, bare, `${bare}==`];
  return schemes.flatMap((scheme) => gaps.flatMap((gap) => paddings.map((padding) => `${scheme}${gap}${padding}`)));
}

const token = (sub: string, jti: string): Promise<string> =>
  new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setJti(jti).setIssuedAt().sign(new TextEncoder().encode(JWT_SECRET));

describe('a rate limit keyed by a credential counts the caller, not the spelling', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  let runs: number;
  let warned: string[];

  async function serve(one: WorkflowWebhooks, options: WebhookMiddlewareOptions): Promise<void> {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(one);
    const middleware = createWebhookMiddleware(registry, () => {
      runs += 1;
      return { items: [{ json: {} }] };
    }, { logger: { warn: (_fields, message) => warned.push(message ?? ''), error: () => undefined }, ...options });
    server = await listen((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
  }

  const post = (authorization: string): Promise<RawResponse> =>
    sendTo(server.port, { path: '/webhook/hook', headers: { 'content-type': 'application/json', authorization }, chunks: ['{}'] });

  async function statuses(headers: readonly string[]): Promise<number[]> {
    const answered: number[] = [];
    for (const header of headers) answered.push((await post(header)).status);
    return answered;
  }

  const limited = (authentication: 'basicAuth' | 'jwtAuth' | 'none'): WorkflowWebhooks =>
    workflow('wf', { path: 'hook', httpMethod: 'POST', authentication }, { settings: { rateLimit: { limit: LIMIT, windowMs: 60_000, key: 'authorization' } } });

  beforeEach(() => {
    runs = 0;
    warned = [];
  });
  afterEach(async () => { await server?.close(); });

  it('lets 3 of 60 spellings of one Basic credential through a limit of 3, every spelling accepted by the guard', async () => {
    await serve(limited('basicAuth'), { credentials: () => ({ user: USER, password: PASSWORD }) });
    const spellings = basicSpellings(USER, PASSWORD);
    expect(new Set(spellings).size).to.equal(60);
    const answered = await statuses(spellings);
    expect(answered.slice(0, LIMIT)).to.deep.equal([200, 200, 200]);
    expect(new Set(answered.slice(LIMIT))).to.deep.equal(new Set([429]));
    expect(runs).to.equal(LIMIT);
  });

  it('lets 3 of 20 calls of one JWT subject through, whatever the token and however Bearer is written', async () => {
    await serve(limited('jwtAuth'), { credentials: () => ({ keyType: 'passphrase', secret: JWT_SECRET }) });
    const spellings = await Promise.all(Array.from({ length: 20 }, async (_, index) =>
      `${['Bearer', 'bearer', 'BEARER', 'bEaReR'][index % 4]}${[' ', '   ', '\t'][index % 3]}${await token('user-7', `t${index % 5}`)}${index % 2 === 0 ? '' : ' '}`));
    const answered = await statuses(spellings);
    expect(answered.slice(0, LIMIT)).to.deep.equal([200, 200, 200]);
    expect(new Set(answered.slice(LIMIT))).to.deep.equal(new Set([429]));
    expect((await post(`Bearer ${await token('user-8', 'other')}`)).status, 'another subject has a budget of its own').to.equal(200);
  });

  it('counts an unchecked authorization header by its normalised value: spellings of one Basic credential share a budget, another credential has its own', async () => {
    await serve(limited('none'), {});
    const answered = await statuses(basicSpellings(USER, PASSWORD).slice(0, 12));
    expect(answered.filter((status) => status === 200)).to.have.length(LIMIT);
    expect((await post(`Basic ${Buffer.from(`${USER}:another-one`).toString('base64')}`)).status).to.equal(200);
  });

  it('tells the logger once that a header no guard checks gets a budget per made-up value, and is silent for the checked one', async () => {
    await serve(limited('none'), {});
    await statuses(['Bearer one', 'Bearer two', 'Bearer three']);
    expect(warned.filter((message) => message.includes('authorization, which the node\'s authentication does not check'))).to.have.length(1);
    await server.close();
    warned = [];
    await serve(limited('basicAuth'), { credentials: () => ({ user: USER, password: PASSWORD }) });
    await statuses(basicSpellings(USER, PASSWORD).slice(0, 2));
    expect(warned.filter((message) => message.includes('does not check'))).to.deep.equal([]);
  });
});
