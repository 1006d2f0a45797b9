/**
 * What a caller can make history compute is bounded, and other calls are served meanwhile (Express 5, history on
 * memory): a 1 MiB JSON body kept whole that is wide, full of credential-named keys and of the call's own secrets,
 * sent with many credential headers and query parameters; a body nested as deep as a host's raised bodyDepth lets
 * through; a workflow's answer that JSON cannot write (nested past the stack, a cycle). Each such call is answered
 * as its workflow says, kept (cut where it had to be, and saying so), with no secret of the call in what is kept, and
 * an ordinary call is answered while it is in flight. On every store, a find by a long, deep body pointer over such
 * calls answers, and an ordinary call sent beside it is answered too.
 */
import { expect } from 'chai';
import type { HistoryEntry, WebhookRun } from '../../../lib/index.js';
import { DEEPER, REPEATED } from '../../../lib/webhooks/history/kept-cut.js';
import { hookWorkflow, startHistoryApp, type HistoryApp } from '../../support/history-app.js';
import { leaked } from '../../support/history/secret-calls.js';
import { historyStoreKinds } from '../../support/history/stores.js';

const MIB = 1024 * 1024;
/** Secrets the call carries: in its headers (80 of them) and its query (150 parameters). */
const HEADER_SECRETS = Array.from({ length: 80 }, (_, index) => `hdr-5ecret-${index}-${'h'.repeat(20)}`);
const QUERY_SECRETS = Array.from({ length: 150 }, (_, index) => `qry-5ecret-${index}`);
/** One long secret of repeats, which a search per secret would compare nearly whole at every place of a run of `a`. */
const REPEAT_SECRET = `${'a'.repeat(2000)}b${'a'.repeat(2000)}`;
const SECRETS = [...HEADER_SECRETS, ...QUERY_SECRETS, REPEAT_SECRET];

function secretHeaders(): Record<string, string> {
  return Object.fromEntries(HEADER_SECRETS.map((secret, index) => [`x-${index}-api-token`, secret]));
}

function secretQuery(): string {
  return [...QUERY_SECRETS.map((secret, index) => `p${index}_password=${secret}`), `long_token=${REPEAT_SECRET}`].join('&');
}

/**
 * About 1 MiB of JSON: a `headers` object of 17 000 credential-named keys (redacted by name), objects 60 levels deep
 * with a `token` and a secret at each level, 2 000 strings that repeat the call's secrets, and long runs of `a`.
 */
function costlyBody(): Record<string, unknown> {
  const headers = Object.fromEntries(Array.from({ length: 17_000 }, (_, index) => [`f${index}_password`, `pw-${index}`]));
  let nested: Record<string, unknown> = { token: SECRETS[0] };
  for (let level = 0; level < 60; level += 1) nested = { token: SECRETS[level % SECRETS.length], secret: `lvl-${level}`, inner: nested };
  const notes = Array.from({ length: 2000 }, (_, index) => `note ${index}: ${SECRETS[index % SECRETS.length]} then ${SECRETS[(index * 7) % SECRETS.length]}`);
  const runs = Array.from({ length: 3 }, () => `${'a'.repeat(100_000)}${REPEAT_SECRET}${'a'.repeat(50_000)}`);
  return { headers, nested, notes, runs, marker: 'costly-call' };
}

/** `[[[ … "deep-5ecret…" … ]]]` as deep as `levels`: what a host that raised limits.bodyDepth lets through. */
function deepBodyText(levels: number): string {
  return `${'['.repeat(levels)}"${QUERY_SECRETS[0]}"${']'.repeat(levels)}`;
}

interface Gate {
  opened: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { opened, open };
}

describe('history bounds what a caller can make it compute (Express 5, memory)', function () {
  this.timeout(60_000);
  let app: HistoryApp | undefined;
  /** The costly call's run has started (its request is kept by then), and what lets it end. */
  let reached: Gate;
  let release: Gate;
  /** What the costly workflow answers: its trigger items, unless a test gives another answer. */
  let costlyAnswer: ((run: WebhookRun) => unknown) | undefined;

  beforeEach(async () => {
    reached = gate();
    release = gate();
    costlyAnswer = undefined;
    app = await startHistoryApp({
      workflows: [hookWorkflow('costly', 'costly'), hookWorkflow('silent', 'silent', { responseData: 'noData' }), hookWorkflow('plain', 'plain')],
      history: { bodyBytes: MIB + 65_536, answerBytes: 4 * MIB },
      middleware: { limits: { bodyDepth: 200_000, headerCount: 120, urlLength: 16_384 } },
      async executor(run) {
        if (run.workflowId === 'plain') return { items: [{ json: { plain: true } }] };
        reached.open();
        await release.opened;
        return costlyAnswer === undefined ? { items: run.items } : { items: [{ json: costlyAnswer(run) as Record<string, unknown> }] };
      },
    });
  });

  afterEach(async () => {
    release.open();
    await app?.close();
    app = undefined;
  });

  /** Sends the costly call; once its run has started, an ordinary call, whose answer must come while it is held. */
  async function costlyBesideOrdinary(body: string, headers: Record<string, string> = {}, query = '', path = 'costly'): Promise<{ costly: Response; order: string[] }> {
    const running = app as HistoryApp;
    const order: string[] = [];
    const costly = fetch(`${running.url(path)}${query === '' ? '' : `?${query}`}`, {
      method: 'POST', body, headers: { 'content-type': 'application/json', ...headers },
    }).then((answer) => { order.push('costly answered'); return answer; });
    await Promise.race([reached.opened, costly.then((answer) => expect.fail(`the costly call was answered ${answer.status} before its run`))]);
    const plain = await fetch(running.url('plain'), { method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' } });
    order.push(`plain answered ${plain.status}`);
    release.open();
    return { costly: await costly, order };
  }

  async function keptCostly(): Promise<HistoryEntry> {
    const entries = await (app as HistoryApp).kept();
    return entries.find((entry) => entry.workflowId !== 'plain') ?? expect.fail('the costly call was not kept');
  }

  for (const [shape, named] of [['with a headers object of credential-named keys', true], ['of strings only, judged on its text', false]] as const) {
    it(`keeps a 1 MiB body full of secrets (${shape}) whole, with none of them, while another call is answered`, async () => {
      const sent = costlyBody();
      if (!named) {
        sent.more = Object.entries(sent.headers as Record<string, string>).map(([name, value]) => `${name}=${value}`);
        delete sent.headers;
      }
      const body = JSON.stringify(sent);
      expect(body.length).to.be.within(MIB * 0.9, MIB + 65_536);
      const { costly, order } = await costlyBesideOrdinary(body, secretHeaders(), secretQuery());
      expect(costly.status).to.equal(200);
      expect(order).to.deep.equal(['plain answered 200', 'costly answered']);
      const entry = await keptCostly();
      expect(entry.data.bodyKept).to.equal('whole');
      const kept = entry.data.body as ReturnType<typeof costlyBody>;
      expect(kept.marker).to.equal('costly-call');
      if (named) expect(Object.values(kept.headers as Record<string, unknown>)).to.satisfy((values: unknown[]) => values.every((value) => value === '[redacted]'));
      expect(leaked(JSON.stringify(entry), SECRETS)).to.deep.equal([]);
      // The kept runs of `a` are what was sent around the long secret, not cut into.
      expect((kept.runs as string[])[0]).to.equal(`${'a'.repeat(100_000)}[redacted]${'a'.repeat(50_000)}`);
    });
  }

  it('keeps a body nested past what the stack holds as its cut text, says so, and answers the call as its workflow says', async () => {
    costlyAnswer = () => ({ received: true });
    const { costly, order } = await costlyBesideOrdinary(deepBodyText(150_000), {}, `p_password=${QUERY_SECRETS[0]}`);
    expect(costly.status).to.equal(200);
    expect(order).to.deep.equal(['plain answered 200', 'costly answered']);
    const entry = await keptCostly();
    expect(entry.status).to.equal(200);
    expect(entry.data.bodyKept).to.equal('truncated');
    expect(entry.data.bodySize).to.equal(deepBodyText(150_000).length);
    expect(entry.data.body).to.be.a('string').and.include(DEEPER);
    expect(leaked(JSON.stringify(entry), SECRETS)).to.deep.equal([]);
  });

  it('keeps an answer JSON cannot write whole (nested past the stack, a cycle) as its cut text, and the caller gets the answer', async () => {
    costlyAnswer = () => {
      let deep: unknown[] = [QUERY_SECRETS[0]];
      for (let level = 0; level < 100_000; level += 1) deep = [deep];
      const answer: Record<string, unknown> = { marker: 'answer', echoed: `see ${QUERY_SECRETS[0]}`, deep };
      answer.self = answer;
      return answer;
    };
    // The caller is sent no data of the answer: what history keeps of it must not change what the caller gets.
    const { costly, order } = await costlyBesideOrdinary('{"a":1}', {}, `p_password=${QUERY_SECRETS[0]}`, 'silent');
    expect(costly.status).to.equal(200);
    expect(order).to.deep.equal(['plain answered 200', 'costly answered']);
    const entry = await keptCostly();
    expect(entry.data.answerKept).to.equal('truncated');
    expect(entry.data.answer).to.be.a('string').and.include(REPEATED).and.include(DEEPER).and.include('[redacted]');
    expect(leaked(JSON.stringify(entry), SECRETS)).to.deep.equal([]);
  });
});

for (const kind of historyStoreKinds('finding over costly calls by a long, deep body pointer')) {
  describe(`history finds over costly calls by a long, deep body pointer (Express 5, ${kind.name})`, function () {
    this.timeout(60_000);
    const stores = kind.setup();
    let app: HistoryApp | undefined;

    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('finds the calls whose body holds the value at the pointer, and an ordinary call is answered beside it', async () => {
      app = await startHistoryApp({
        workflows: [hookWorkflow('costly', 'costly'), hookWorkflow('plain', 'plain')],
        history: { store: await stores.open(), bodyBytes: MIB + 65_536 },
        middleware: { limits: { headerCount: 120, urlLength: 16_384 } },
        executor: (run) => (run.workflowId === 'plain' ? { items: [{ json: { plain: true } }] } : { items: [{ json: { kept: true } }] }),
      });
      const running = app;
      const body = JSON.stringify(costlyBody());
      for (let call = 0; call < 3; call += 1) {
        const sent = await fetch(`${running.url('costly')}?${secretQuery()}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...secretHeaders() } });
        expect(sent.status).to.equal(200);
      }
      await running.history.flush();
      // 61 levels down, where the body holds one of the call's secrets: kept as `[redacted]`.
      const pointer = `/nested${'/inner'.repeat(59)}/token`;
      const order: string[] = [];
      const found = running.history.find({ body: { pointer, equals: '[redacted]' } }, { limit: 500 }).then((page) => { order.push('found'); return page; });
      const plain = fetch(running.url('plain'), { method: 'POST', body: '{"n":2}', headers: { 'content-type': 'application/json' } })
        .then((answer) => { order.push(`plain answered ${answer.status}`); });
      const [page] = await Promise.all([found, plain]);
      expect(page.entries.map((entry) => entry.workflowId)).to.deep.equal(['costly', 'costly', 'costly']);
      expect(order).to.have.members(['found', 'plain answered 200']);
      // Deeper than any body goes: nothing there, and nothing fails.
      expect((await running.history.find({ body: { pointer: `/nested${'/inner'.repeat(70)}`, equals: 1 } })).entries).to.deep.equal([]);
    });
  });
}
