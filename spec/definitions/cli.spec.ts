import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../lib/definitions/cli.js';
import { NODE_DESCRIPTION_SCHEMA } from '../../lib/definitions/index.js';
import { docSection } from '../support/readme/blocks.js';
import { writeNodePackage } from './fixtures/node-package.js';

async function cli(...argv: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const status = await runCli(argv, { out: (text) => { out += text; }, err: (text) => { err += text; } });
  return { status, out, err };
}

describe('the workflow-webhooks CLI', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'ww-cli-')); });
  afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

  const broken = {
    properties: [
      { displayName: 'Speed', name: 'speed', type: 'options', default: 'fast', options: [{ name: 'Slow', value: 'slow' }, { name: 'Medium', value: 'medium' }] },
      { displayName: 'Limit', name: 'limit', type: 'number', default: 50, typeOptions: { minVale: 1 } },
    ],
  };

  it('prints each finding with its path and exits 1 on errors', async () => {
    const file = join(dir, 'node.json');
    writeFileSync(file, JSON.stringify(broken));
    const { status, out } = await cli('lint', file);
    expect(status).to.equal(1);
    expect(out).to.equal([
      file,
      '  error   /properties/0/default  default-not-an-option',
      "          properties/0 (options 'speed'): default 'fast' is not one of the option values 'slow', 'medium'",
      '  warning /properties/1/typeOptions/minVale  unknown-type-option',
      "          properties/1 (number 'limit'): typeOptions.minVale is not a known type option; did you mean minValue?",
      '  1 error, 1 warning',
      '',
    ].join('\n'));
  });

  it('exits 0 for a clean file, and lints JS modules exporting a description or a property list', async () => {
    const file = join(dir, 'node.mjs');
    writeFileSync(file, 'export default { properties: [{ displayName: "A", name: "a", type: "string", default: "" }] };');
    const list = join(dir, 'list.mjs');
    writeFileSync(list, 'export const description = [{ displayName: "A", name: "a", type: "string", default: "" }];');
    const { status, out } = await cli('lint', file, list);
    expect(status).to.equal(0);
    expect(out).to.include('0 errors, 0 warnings');
  });

  it('prints JSON with --json, and exits 2 for an unreadable file or no file', async () => {
    const file = join(dir, 'node.json');
    writeFileSync(file, JSON.stringify(broken));
    const json = await cli('lint', '--json', file);
    expect((JSON.parse(json.out) as Record<string, { valid: boolean }>)[file]?.valid).to.equal(false);
    expect((await cli('lint', join(dir, 'missing.json'))).status).to.equal(2);
    expect((await cli('lint')).status).to.equal(2);
    expect((await cli('frobnicate')).status).to.equal(2);
  });

  it('lints a compiled node package as its author ships it, version by version, and exits 1 on its errors', async () => {
    const { ticket, board } = writeNodePackage(dir);
    const { status, out } = await cli('lint', dir);
    expect(status).to.equal(1);
    expect(out).to.include(`${ticket}#Ticket\n  warning /properties/1/required  required-false`);
    expect(out).to.include(`${board}#Board@1\n  error   /properties/1/name  duplicate-name`);
    expect(out).to.include(`${board}#Board@2,2.1\n  0 errors, 0 warnings`);
    expect(out.endsWith('3 descriptions: 1 error, 1 warning\n')).to.equal(true);
  });

  it('exits 0 when only warnings are found, and 1 for them with --strict', async () => {
    const { ticket } = writeNodePackage(dir);
    expect((await cli('lint', ticket)).status).to.equal(0);
    const strict = await cli('lint', '--strict', ticket);
    expect(strict.status).to.equal(1);
    expect(strict.out).to.include('error   /properties/1/required  required-false');
  });

  it('judges @version by --node-version when given', async () => {
    const { board } = writeNodePackage(dir);
    // Version 2 alone: the version-1 twin of the first description is never shown.
    expect((await cli('lint', '--node-version', '2', board)).status).to.equal(0);
    expect((await cli('lint', '--node-version=1', board)).status).to.equal(1);
    expect((await cli('lint', '--node-version', 'two', board)).status).to.equal(2);
  });

  it('prints JSON with --format json, keyed by node', async () => {
    const { board } = writeNodePackage(dir);
    const { out, status } = await cli('lint', '--format', 'json', board);
    expect(status).to.equal(1);
    const report = JSON.parse(out) as Record<string, { valid: boolean }>;
    expect(Object.keys(report)).to.deep.equal([`${board}#Board@1`, `${board}#Board@2,2.1`]);
    expect(report[`${board}#Board@1`]?.valid).to.equal(false);
  });

  it('refuses unknown options and prints usage with exit 2 when given nothing', async () => {
    const unknown = await cli('lint', '--fix', join(dir, 'x.json'));
    expect(unknown.status).to.equal(2);
    expect(unknown.err).to.match(/^unknown option --fix\nUsage:/);
    expect((await cli('lint', '--format', 'xml', 'x')).status).to.equal(2);
    const bare = await cli();
    expect(bare.status).to.equal(2);
    expect(bare.err).to.match(/^Usage:/);
    expect((await cli('--help')).status).to.equal(0);
  });

  it('prints its own version with --version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await cli('--version')).to.deep.equal({ status: 0, out: `${version}\n`, err: '' });
  });

  it('prints or writes the JSON Schema', async () => {
    expect(JSON.parse((await cli('schema')).out)).to.deep.equal(JSON.parse(JSON.stringify(NODE_DESCRIPTION_SCHEMA)));
    const out = join(dir, 'schema.json');
    expect((await cli('schema', '--out', out)).status).to.equal(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).to.have.property('$id', NODE_DESCRIPTION_SCHEMA.$id);
  });
});

describe('the definitions guide\'s lint example', () => {
  it('shows exactly what the CLI prints for its failing definition', async () => {
    const section = docSection('docs/definitions.md', '# Node property definitions');
    const input = /failing definition:\n\n```json\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const expected = /the CLI prints, exactly:\n\n```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const dir = mkdtempSync(join(tmpdir(), 'ww-readme-'));
    try {
      writeFileSync(join(dir, 'node.json'), input);
      const { status, out } = await cli('lint', join(dir, 'node.json'));
      expect(status).to.equal(1);
      expect(out.replace(join(dir, 'node.json'), 'node.json')).to.equal(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
