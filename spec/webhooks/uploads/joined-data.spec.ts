import { expect } from 'chai';
import { defineData } from '../../../lib/webhooks/uploads/joined-data.js';

describe('the data of a file held in memory', () => {
  const chunks = [Buffer.from('hello '), Buffer.from('big '), Buffer.from('world')];

  /** The chunks, counting how often they are joined (each join reads the first chunk once). */
  function watched(): { chunks: Buffer[]; joins: () => number } {
    let joins = 0;
    const list = [...chunks];
    Object.defineProperty(list, 0, { get: () => { joins += 1; return chunks[0]; } });
    return { chunks: list, joins: () => joins };
  }

  it('joins the chunks into one Buffer when first read, once, and gives that same Buffer after', () => {
    const { chunks: list, joins } = watched();
    const entry: { mimeType: string; data?: Buffer } = { mimeType: 'text/plain' };
    defineData(entry, list, 15);
    expect(entry.mimeType).to.equal('text/plain');
    expect(joins()).to.equal(0);
    const data = entry.data;
    expect(data?.toString()).to.equal('hello big world');
    expect(entry.data).to.equal(data);
    expect(joins()).to.equal(1);
  });

  it('is an own enumerable property like any other, so copies, JSON and key lists see it', () => {
    const entry: { mimeType: string; data?: Buffer } = { mimeType: 'text/plain' };
    defineData(entry, chunks, 15);
    expect(Object.keys(entry)).to.deep.equal(['mimeType', 'data']);
    expect({ ...entry }.data?.toString()).to.equal('hello big world');
    expect(JSON.parse(JSON.stringify(entry)).data.data).to.have.length(15);
    expect(structuredClone(entry).data).to.deep.equal(Buffer.from('hello big world'));
  });

  it('takes a value assigned before it was read, and never joins the chunks then', () => {
    const { chunks: list, joins } = watched();
    const entry: { data?: Buffer } = {};
    defineData(entry, list, 15);
    entry.data = Buffer.from('replaced');
    expect(joins()).to.equal(0);
    expect(entry.data.toString()).to.equal('replaced');
    entry.data = undefined;
    expect(entry.data).to.equal(undefined);
  });

  it('keeps the data of a frozen entry, as a frozen object keeps a plain property', () => {
    const entry: { data?: Buffer } = {};
    defineData(entry, chunks, 15);
    Object.freeze(entry);
    expect(() => { entry.data = Buffer.from('replaced'); }).to.throw(TypeError);
    expect(entry.data?.toString()).to.equal('hello big world');
  });

  it('copies a single chunk too, so data never shares memory with other bytes; no chunk is an empty Buffer', () => {
    const only = Buffer.from('one');
    const single: { data?: Buffer } = {};
    defineData(single, [only], 3);
    expect(single.data).to.deep.equal(only);
    (single.data as Buffer)[0] = 0x4f;
    expect(only.toString()).to.equal('one');
    const none: { data?: Buffer } = {};
    defineData(none, [], 0);
    expect(none.data).to.deep.equal(Buffer.alloc(0));
  });
});
