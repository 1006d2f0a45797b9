import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadFile, loadPackage, loadTarget } from '../../lib/definitions/node-loader.js';
import { TS_NODE, writeNodePackage } from './fixtures/node-package.js';

describe('loading node descriptions where authors keep them', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'ww-loader-')); });
  afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

  it('finds a compiled node class exported by name, with its methods beside the description, and runs no helper', async () => {
    const { ticket } = writeNodePackage(dir);
    const { nodes, problems } = await loadFile(ticket);
    expect(problems).to.deep.equal([]);
    expect(nodes.map((node) => node.label)).to.deep.equal([`${ticket}#Ticket`]);
    expect(Object.keys((nodes[0]?.input as { methods: { loadOptions: object } }).methods.loadOptions)).to.deep.equal(['getTags']);
  });

  it('gives a versioned node one description per distinct version', async () => {
    const { board } = writeNodePackage(dir);
    const { nodes } = await loadFile(board);
    expect(nodes.map((node) => node.label)).to.deep.equal([`${board}#Board@1`, `${board}#Board@2,2.1`]);
  });

  it('loads every node a package lists under n8n.nodes, and says which listed file is missing', async () => {
    writeNodePackage(dir);
    expect((await loadTarget(dir)).nodes).to.have.length(3);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ n8n: { nodes: ['dist/nodes/Ticket.node.js', 'dist/nodes/Gone.node.js'] } }));
    const { nodes, problems } = await loadPackage(dir);
    expect(nodes).to.have.length(1);
    expect(problems[0]?.message).to.match(/listed under n8n.nodes but missing/);
  });

  it('refuses a folder that is not a node package, and a module that exports no node', async () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'plain' }));
    expect((await loadPackage(dir)).problems[0]?.message).to.match(/lists no nodes under n8n.nodes/);
    writeFileSync(join(dir, 'util.cjs'), 'exports.add = (a, b) => a + b;');
    expect((await loadFile(join(dir, 'util.cjs'))).problems[0]?.message).to.match(/exports no node class/);
  });

  it('loads a TypeScript node source when a TypeScript loader is there', async () => {
    writeFileSync(join(dir, 'Memo.node.ts'), TS_NODE);
    const { nodes, problems } = await loadFile(join(dir, 'Memo.node.ts'));
    expect(problems).to.deep.equal([]);
    expect(nodes.map((node) => node.label)).to.deep.equal([`${join(dir, 'Memo.node.ts')}#Memo`]);
  });
});
