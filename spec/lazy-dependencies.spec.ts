import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * jose, fast-xml-parser, ajv and mime-types are loaded by the first call that needs them (a JWT, an XML body, a
 * validation, a file), never by importing an entry point: most hosts need none of them. A fresh Node process
 * imports the entry points (all but queue and opentelemetry, whose packages are their own; the Fastify plugin's
 * types are structural, so it loads nothing of Fastify) and reports every
 * package module it loaded, ES modules through a resolve hook, CommonJS ones from the require cache; then it uses
 * each feature, to show the probe sees the packages when they are loaded.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LAZY = ['jose', 'fast-xml-parser', 'ajv', 'mime-types'];

const HOOKS = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}`;

const PROBE = `
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const urls = new Set();
port1.on('message', (url) => urls.add(url));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
const require = createRequire(import.meta.url);
const packages = () => {
  const seen = new Set();
  for (const path of [...urls, ...Object.keys(require.cache)]) {
    const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(decodeURIComponent(path));
    if (match) seen.add(match[1]);
  }
  return [...seen].sort();
};
// The hooks' messages come in order: once a marker module's own resolution is heard, every earlier one has been.
let marks = 0;
const settle = async () => {
  const marker = 'data:text/javascript,export{}//mark-' + (marks += 1);
  await import(marker);
  for (const until = Date.now() + 5000; !urls.has(marker); await new Promise((done) => setTimeout(done, 5))) {
    if (Date.now() > until) throw new Error('the resolve hook never told of ' + marker);
  }
};
await import('workflow-webhooks');
const definitions = await import('workflow-webhooks/definitions');
await import('workflow-webhooks/redis');
await import('workflow-webhooks/postgres');
await import('workflow-webhooks/console');
await import('workflow-webhooks/fastify');
await settle();
const onImport = packages();
definitions.validateProperties([{ displayName: 'A', name: 'a', type: 'string', default: '' }]);
const { parseXmlBody } = await import('./lib/webhooks/payload/xml.ts');
parseXmlBody(Buffer.from('<a>1</a>'), undefined, 64);
const { describeBinary } = await import('./lib/webhooks/uploads/binary-meta.ts');
describeBinary({ mimeType: 'image/png', fileName: undefined, bytes: 1 });
await import('jose');
await settle();
console.log(JSON.stringify({ onImport, afterUse: packages() }));
port1.close();
`;

describe('optional heavy dependencies', function () {
  this.timeout(30_000);

  it('are not loaded by importing any entry point, only by the first call that needs them', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--conditions=workflow-webhooks-source', '--import', 'tsx', '--input-type=module', '--eval', PROBE,
    ], { cwd: root });
    const { onImport, afterUse } = JSON.parse(stdout.trim().split('\n').pop() as string) as { onImport: string[]; afterUse: string[] };
    expect(onImport.filter((name) => LAZY.includes(name))).to.deep.equal([]);
    // Queue mode's and OpenTelemetry's packages belong to their own entry points: the others never load them.
    expect(onImport.filter((name) => ['bullmq', 'redis', '@redis/client', '@opentelemetry/api'].includes(name))).to.deep.equal([]);
    // The PostgreSQL registry is handed the host's pg.Pool: node-postgres is loaded only for a connection string.
    expect(onImport.filter((name) => name === 'pg' || name.startsWith('pg-'))).to.deep.equal([]);
    // The Fastify plugin is handed the app it runs in: it imports nothing of Fastify, so a host pays for none of it.
    expect(onImport.filter((name) => name === 'fastify' || name.startsWith('@fastify/'))).to.deep.equal([]);
    expect(afterUse).to.include.members(LAZY);
  });
});
