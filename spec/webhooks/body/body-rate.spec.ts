import type { Server } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookMiddlewareOptions } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { firstAnswer, listen, writePostHead, type SocketAnswer } from '../../support/raw-http.js';
import { bodyOnFakeClock, type BodyStep } from '../../support/fake-clock-body.js';
import { eventually, filesUnder, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

const host = HOSTS[0] as (typeof HOSTS)[number];
/** Low enough for a quick spec: 200 ms of grace, then 1000 bytes a second. */
const LOW_RATE = { bytesPerSecond: 1000, graceMs: 200 };

interface Trickle {
  /** The first answer the server writes. */
  answer: Promise<SocketAnswer>;
  /** Settles once the server has closed the connection. */
  closed: Promise<void>;
  stop(): void;
}

/**
 * A client on a raw socket: it sends the head and the first `first` bytes of `body`, then `slice` bytes every
 * `everyMs` until the body is sent or the connection is closed.
 */
function trickle(port: number, headers: Record<string, string>, body: string, pace: { first: number; slice: number; everyMs: number }): Trickle {
  const bytes = Buffer.from(body);
  const socket = connect(port, '127.0.0.1');
  let sent = 0;
  const write = (count: number): void => {
    if (sent >= bytes.length || socket.destroyed) return;
    socket.write(bytes.subarray(sent, sent + count));
    sent += count;
  };
  const timer = setInterval(() => write(pace.slice), pace.everyMs);
  const closed = new Promise<void>((resolve) => socket.on('close', () => { clearInterval(timer); resolve(); }));
  const answer = firstAnswer(socket);
  writePostHead(socket, `${BASE}/webhook/in`, headers, bytes.length);
  write(pace.first);
  return { answer, closed, stop: () => { clearInterval(timer); socket.destroy(); } };
}

/** Ten bytes every 50 ms: 200 bytes a second, a fifth of LOW_RATE. */
const TEN_BYTES = { first: 10, slice: 10, everyMs: 50 };

describe(`a request body trickled below the minimum rate (${host.name}, real sockets)`, () => {
  let temp: TempDir;
  let calls: number;
  let close: () => Promise<void>;
  let port: number;
  let server: Server;
  let client: Trickle | undefined;
  let watch: NodeJS.Timeout | undefined;

  async function start(options: WebhookMiddlewareOptions): Promise<void> {
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'in', httpMethod: 'POST', responseMode: 'lastNode', responseData: 'noData' }));
    const app = host.build(createWebhookMiddleware(registry, async () => { calls += 1; return { items: [] }; }, {
      uploads: { tempDir: temp.path, memoryThreshold: 0 }, ...options,
    }));
    ({ close, port, server } = await listen(app));
  }

  beforeEach(() => { temp = makeTempDir(); calls = 0; client = undefined; });
  afterEach(async () => { clearInterval(watch); client?.stop(); await close(); temp.remove(); });

  /** Expects the answer 408 BODY_TOO_SLOW stating the rule, on a connection the server then closes. */
  async function expectTooSlow(trickling: Trickle): Promise<void> {
    const answer = await trickling.answer;
    expect([answer.status, answer.body.code]).to.deep.equal([408, 'BODY_TOO_SLOW']);
    expect(answer.body.message).to.equal('The request body arrived too slowly: after the first 200 ms, a body must keep coming at 1000 bytes per second on average.');
    expect(answer.head).to.match(/\r\nconnection: close\r\n/i);
    // The rest of the body is not waited for: the server hangs up while the client is still sending.
    await trickling.closed;
    expect(calls).to.equal(0);
  }

  it('answers a JSON body sent ten bytes at a time 408 BODY_TOO_SLOW and closes the connection', async () => {
    await start({ minBodyRate: LOW_RATE });
    client = trickle(port, { 'content-type': 'application/json' }, JSON.stringify({ note: 'x'.repeat(10_000) }), TEN_BYTES);
    await expectTooSlow(client);
  });

  it('answers a raw binary body that trickles 408 BODY_TOO_SLOW', async () => {
    await start({ minBodyRate: LOW_RATE });
    client = trickle(port, { 'content-type': 'application/octet-stream' }, 'y'.repeat(10_000), TEN_BYTES);
    await expectTooSlow(client);
    await eventually(() => temp.files().length === 0);
  });

  it('answers a multipart upload going to disk that trickles 408 BODY_TOO_SLOW, and removes its temp file', async () => {
    await start({ minBodyRate: LOW_RATE });
    let sawFile = false;
    watch = setInterval(() => { sawFile ||= filesUnder(temp.path).length > 0; }, 5);
    const head = '--B\r\nContent-Disposition: form-data; name="scan"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4';
    client = trickle(port, { 'content-type': 'multipart/form-data; boundary=B' }, `${head}${'z'.repeat(100_000)}\r\n--B--\r\n`, { ...TEN_BYTES, first: head.length });
    await expectTooSlow(client);
    clearInterval(watch);
    expect(sawFile).to.equal(true);
    // The directory the middleware writes to: the call's own directory inside it goes too.
    await eventually(() => temp.files().length === 0);
  });

  it('lets a body through that keeps above the rate, though it takes longer than the grace', async () => {
    await start({ minBodyRate: LOW_RATE });
    // 200 bytes every 50 ms, four times the rate, for about 600 ms.
    client = trickle(port, { 'content-type': 'application/json' }, JSON.stringify({ note: 'n'.repeat(2400) }), { first: 200, slice: 200, everyMs: 50 });
    expect((await client.answer).status).to.equal(200);
    expect(calls).to.equal(1);
  });

  it('lets a normal body through with the default rate', async () => {
    await start({});
    const big = { rows: Array.from({ length: 20_000 }, (_, index) => ({ index, name: `row ${index}` })) };
    expect((await request(`http://127.0.0.1:${port}`).post(`${BASE}/webhook/in`).send(big)).status).to.equal(200);
    expect(calls).to.equal(1);
  });

  /**
   * On a fake clock (spec/support/fake-clock-body.ts): the head and 10 of a 100-byte JSON body, then `ticks` of the
   * sweep's `sweepMs` after its first look, before each one more byte with `drip`, then the rest.
   */
  function slowBody(ticks: number, sweepMs: number, drip = false): Promise<SocketAnswer> {
    const body = JSON.stringify({ note: 'n'.repeat(89) });
    const steps: BodyStep[] = [{ write: body.slice(0, 10) }, { ticks: drip ? 1 : ticks + 1 }];
    if (drip) for (let tick = 1; tick <= ticks; tick += 1) steps.push({ write: body.slice(9 + tick, 10 + tick) }, { ticks: 1 });
    steps.push({ write: body.slice(drip ? 10 + ticks : 10) });
    return bodyOnFakeClock(server, `${BASE}/webhook/in`, { 'content-type': 'application/json' }, body.length, sweepMs, steps);
  }
  /** 1000 bytes a second after 2040 ms of grace; with bodyTimeoutMs 3960 the sweep looks every 510 ms. */
  const PACED = { minBodyRate: { bytesPerSecond: 1000, graceMs: 2040 }, bodyTimeoutMs: 3960, maxRunMs: 0 };

  it('gives a body its grace before the rate counts: a slow start within graceMs is let through', async () => {
    await start(PACED);
    expect((await slowBody(3, 510)).status).to.equal(200);
    expect(calls).to.equal(1);
  });

  it('cuts the same slow start once graceMs has passed, 408 BODY_TOO_SLOW', async () => {
    await start(PACED);
    const answer = await slowBody(6, 510);
    expect([answer.status, answer.body.code]).to.deep.equal([408, 'BODY_TOO_SLOW']);
    expect(calls).to.equal(0);
  });

  it('turns the rate off with false: a byte a second for 12 s, far below any rate and past the default grace, is let through', async () => {
    await start({ minBodyRate: false, bodyTimeoutMs: 3960, maxRunMs: 0 });
    // Without a rate the sweep looks every 990 ms (a quarter of bodyTimeoutMs); a byte before each look keeps it coming.
    expect((await slowBody(12, 990, true)).status).to.equal(200);
    expect(calls).to.equal(1);
  });
});
