import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry, type WebhookEvent } from '../../../lib/index.js';
import { BASE, HOSTS } from '../../support/apps.js';
import { listen } from '../../support/raw-http.js';
import { eventually, makeTempDir, type TempDir } from '../../support/temp-dir.js';
import { workflow } from '../../support/workflows.js';

/** Starts an upload that announces more than it sends, then hangs up once a temp file exists. */
async function abortMidUpload(port: number, temp: TempDir, headers: Record<string, string>, head: string): Promise<void> {
  const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: `${BASE}/webhook/upload`, headers: { ...headers, 'content-length': String(10 * 1024 * 1024) } });
  req.on('error', () => undefined);
  req.write(head);
  for (let i = 0; i < 8; i += 1) req.write(Buffer.alloc(64 * 1024, 1));
  await eventually(() => temp.files().length > 0, 2000);
  req.destroy();
}

for (const host of HOSTS) {
  describe(`a client that aborts mid-body in ${host.name}`, () => {
    let temp: TempDir;
    let calls: number;
    let close: () => Promise<void>;
    let port: number;
    let events: WebhookEvent[];
    const rejected = (): string[] => events.flatMap((event) => event.type === 'rejected' ? [event.code] : []);

    beforeEach(async () => {
      temp = makeTempDir();
      calls = 0;
      events = [];
      const registry = new MemoryWebhookRegistry();
      await registry.activate(workflow('wf', { path: 'upload', httpMethod: 'POST', responseMode: 'lastNode' }));
      const app = host.build(createWebhookMiddleware(registry, async () => { calls += 1; return { items: [{ json: {} }] }; }, {
        uploads: { tempDir: temp.path, memoryThreshold: 0 },
        onEvent: (event) => { events.push(event); },
      }));
      ({ close, port } = await listen(app));
    });
    afterEach(async () => { await close(); temp.remove(); });

    it('leaves no temp file and calls no workflow for a multipart upload', async () => {
      const head = '--B\r\nContent-Disposition: form-data; name="f"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n';
      await abortMidUpload(port, temp, { 'content-type': 'multipart/form-data; boundary=B' }, head);
      await eventually(() => temp.files().length === 0, 2000);
      expect(calls).to.equal(0);
      await eventually(() => rejected().length > 0, 2000);
      expect(rejected()).to.deep.equal(['BODY_ABORTED']);
    });

    it('leaves no temp file and calls no workflow for a binary upload', async () => {
      await abortMidUpload(port, temp, { 'content-type': 'application/octet-stream' }, '');
      await eventually(() => temp.files().length === 0, 2000);
      expect(calls).to.equal(0);
      await eventually(() => rejected().length > 0, 2000);
      expect(rejected()).to.deep.equal(['BODY_ABORTED']);
    });

    it('calls no workflow and reports BODY_ABORTED for a JSON body cut off half-way', async () => {
      const req = httpRequest({
        host: '127.0.0.1', port, method: 'POST', path: `${BASE}/webhook/upload`,
        headers: { 'content-type': 'application/json', 'content-length': '1000' },
      });
      req.on('error', () => undefined);
      req.write('{"order": 12');
      await eventually(() => events.some((event) => event.type === 'received'), 2000);
      req.destroy();
      await eventually(() => rejected().length > 0, 2000);
      expect(rejected()).to.deep.equal(['BODY_ABORTED']);
      expect(calls).to.equal(0);
    });
  });
}
