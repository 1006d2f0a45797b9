import { expect } from 'chai';
import request from 'supertest';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookRun } from '../../../lib/index.js';
import { parseContentType } from '../../../lib/webhooks/body/content-type.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { workflow } from '../../support/workflows.js';

/** Content-Type as HTTP defines it: a quoted parameter value may hold `;`, `=` and escaped quotes. */
describe('Content-Type parameters', () => {
  it('keep a quoted `;` inside their value', () => {
    const parsed = parseContentType('multipart/form-data; boundary="abc;def=ghi"; charset=UTF-8');
    expect(parsed.mediaType).to.equal('multipart/form-data');
    expect(parsed.parameters.boundary).to.equal('abc;def=ghi');
    expect(parsed.charset).to.equal('utf-8');
  });

  it('read white space around `;` and `=`, and give no parameter for a broken one', () => {
    expect(parseContentType('text/plain ;  charset = "ISO-8859-1"').charset).to.equal('iso-8859-1');
    expect(parseContentType('text/plain; charset').charset).to.equal(undefined);
    expect(parseContentType('text/plain; charset="unterminated').charset).to.equal(undefined);
  });

  it('never throw, whatever the header', () => {
    for (const header of ['', ';', '/', 'a/b; =x', 'a/b; "x"', '\u0000/\u0001', 'text/plain, application/json']) {
      expect(() => parseContentType(header), header).to.not.throw();
    }
    expect(parseContentType('text/plain, application/json').mediaType).to.equal('');
  });

  it('let bodies whose parameters quote a `;` through the whole call', async () => {
    const runs: WebhookRun[] = [];
    const registry = new MemoryWebhookRegistry();
    await registry.activate(workflow('wf', { path: 'upload', httpMethod: 'POST' }));
    const app = (HOSTS[0] as (typeof HOSTS)[number]).build(createWebhookMiddleware(registry, (run) => {
      runs.push(run);
      return { items: run.items };
    }));
    const boundary = 'x;y';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nReport\r\n--${boundary}--\r\n`;
    await request(app).post(`${BASE}/webhook/upload`).set('content-type', `multipart/form-data; boundary="${boundary}"`).send(body).expect(200);
    expect(runs[0]?.items[0]?.json.body).to.deep.equal({ title: 'Report' });
    // A `charset=` inside a quoted value is part of that value, not the body's charset.
    await request(app).post(`${BASE}/webhook/upload`).set('content-type', 'text/plain; note="a;charset=klingon"; charset=utf-8').send('héllo').expect(200);
    expect(runs[1]?.items[0]?.json.body).to.equal('héllo');
  });
});
