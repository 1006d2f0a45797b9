/**
 * The bodies every Fastify host spec sends through its way of mounting the middleware (middie or the plugin), and the
 * run's echo they read back: whichever way, Fastify reads none of them and the run gets each as the middleware parses
 * it. The Echo workflow at `orders/:id` must answer lastNode with `echoRun()`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type request from 'supertest';
import type { BinaryData, WebhookRun } from '../../../lib/index.js';

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A run's item as its caller gets it back: the json without the headers, and each file by name, type, place and hash. */
export function echoRun(run: WebhookRun): { items: [{ json: Record<string, unknown> }] } {
  const { json, binary } = run.items[0]!;
  const files = Object.entries(binary ?? {}).map(([name, { fileName, mimeType, data, path }]: [string, BinaryData]) =>
    ({ name, fileName, mimeType, onDisk: path !== undefined, sha256: sha256(data ?? readFileSync(path!)) }));
  return { items: [{ json: { ...json, headers: undefined, files } }] };
}

/** Form, multipart (past Fastify's 1 MiB bodyLimit), XML and text calls to `hook('orders/1')`, each checked at the run. */
export function itGivesEveryBodyToTheRun(http: () => ReturnType<typeof request>, hook: (path: string) => string): void {
  it('gives an urlencoded form to the workflow, flat, as the middleware parses it (Fastify itself has no form parser)', async () => {
    const res = await http().post(hook('orders/1')).type('form').send('name=Ada&tag=a&tag=b&a[b]=1').expect(200);
    expect(res.body.body).to.deep.equal({ name: 'Ada', tag: ['a', 'b'], 'a[b]': '1' });
  });

  it("gives multipart files to the workflow as binary, byte for byte, past Fastify's own 1 MiB bodyLimit", async () => {
    const pdf = randomBytes(1536 * 1024);
    const notes = Buffer.from('first line\nsecond line\n');
    const res = await http().post(hook('orders/1')).field('title', 'Report')
      .attach('document', pdf, { filename: 'report.pdf', contentType: 'application/pdf' })
      .attach('notes', notes, { filename: 'notes.txt', contentType: 'text/plain' }).expect(200);
    expect(res.body.body).to.deep.equal({ title: 'Report' });
    expect(res.body.files).to.deep.equal([
      { name: 'document', fileName: 'report.pdf', mimeType: 'application/pdf', onDisk: true, sha256: sha256(pdf) },
      { name: 'notes', fileName: 'notes.txt', mimeType: 'text/plain', onDisk: false, sha256: sha256(notes) },
    ]);
  });

  it('parses XML and text bodies, which Fastify would refuse 415', async () => {
    const xml = await http().post(hook('orders/1')).set('content-type', 'application/xml').send('<Order id="7"><Item>Tea</Item></Order>').expect(200);
    expect(xml.body.body).to.deep.equal({ order: { $: { id: '7' }, item: 'Tea' } });
    const text = await http().post(hook('orders/1')).set('content-type', 'text/plain').send('hello').expect(200);
    expect(text.body.body).to.equal('hello');
  });
}
