import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../lib/index.js';
import { resolveOptions } from '../../lib/webhooks/options.js';

const MIB = 1024 * 1024;
/** A plain file: no directory can be made inside it, whoever runs the specs (root included). */
const A_FILE = join(mkdtempSync(join(tmpdir(), 'ww-options-')), 'a-file');
writeFileSync(A_FILE, '');

describe('resolveOptions()', () => {
  it('fills every default once', () => {
    const options = resolveOptions();
    expect(options).to.deep.include({ productionPrefix: 'webhook', publicUrl: undefined, errorHandling: 'respond' });
    expect(options.limits).to.deep.equal({
      bodySize: 16 * MIB, jsonSize: 4 * MIB, xmlSize: MIB, binarySize: 200 * MIB, fileSize: 200 * MIB, totalFileSize: 200 * MIB,
      files: 100, fields: 1000, parts: 1100, fieldSize: MIB, fieldNameSize: 200, bodyDepth: 64, schemaWork: 2_500_000, urlLength: 8192, headerCount: 100, headerSize: 12 * 1024,
    });
    expect(options.proxyHops).to.equal(0);
    expect(options.uploads).to.deep.equal({ tempDir: tmpdir(), memoryThreshold: MIB });
    expect(Object.isFrozen(options)).to.equal(true);
  });

  it('takes sizes as strings with units, as body-parser and multer users write them', () => {
    const options = resolveOptions({
      limits: { bodySize: '1mb', fileSize: '500kb', totalFileSize: '1.5 MB', headerSize: '16KB', fieldSize: 2048 },
      uploads: { memoryThreshold: '0b' },
    });
    expect(options.limits).to.deep.include({ bodySize: MIB, fileSize: 500 * 1024, totalFileSize: 1.5 * MIB, headerSize: 16 * 1024, fieldSize: 2048 });
    expect(options.uploads.memoryThreshold).to.equal(0);
  });

  it('normalises prefixes and the public URL', () => {
    const options = resolveOptions({ productionPrefix: '/hooks/live/', publicUrl: 'https://example.com/base/?x=1' });
    expect(options.productionPrefix).to.equal('hooks/live');
    expect(options.publicUrl).to.equal('https://example.com/base');
  });

  for (const [options, message] of [
    [{ productionPrefix: '' }, /option productionPrefix must be a non-empty path/],
    [{ productionPrefix: 'a b' }, /option productionPrefix/],
    [{ productionPrefix: 7 }, /option productionPrefix must be a string; got 7/],
    [{ publicUrl: 'ftp://x' }, /option publicUrl must be an absolute http\(s\) URL/],
    [{ publicUrl: '/relative' }, /option publicUrl/],
    [{ errorHandling: 'throw' }, /option errorHandling must be "respond" or "next"; got "throw"/],
    [{ onWorkflowError: 'log' }, /option onWorkflowError must be a function/],
    [{ limits: { bodySize: -1 } }, /option limits.bodySize must be a size in bytes: a positive integer or a string such as "500kb" or "1.5mb"; got -1/],
    [{ limits: { bodySize: '1 megabyte' } }, /option limits.bodySize must be a size in bytes.*got "1 megabyte"/],
    [{ limits: { fileSize: '10%' } }, /option limits.fileSize must be a size in bytes/],
    [{ limits: { fileSize: '0kb' } }, /option limits.fileSize must be a size in bytes/],
    [{ limits: { files: '10' } }, /option limits.files must be a positive integer; got "10"/],
    [{ limits: { bodySize: 1.5 } }, /option limits.bodySize/],
    [{ limits: null }, /option limits must be an object/],
    [{ bodyLimit: 5 }, /unknown option bodyLimit/],
    [{ limits: { fileSze: 5 } }, /unknown option limits.fileSze/],
    [{ limits: { files: 0 } }, /option limits.files must be a positive integer; got 0/],
    [{ limits: { bodyDepth: 0 } }, /option limits.bodyDepth must be a positive integer; got 0/],
    [{ limits: { bodyDepth: 2.5 } }, /option limits.bodyDepth must be a positive integer; got 2.5/],
    [{ uploads: { tempDir: 'relative/dir' } }, /option uploads.tempDir must be an absolute directory path/],
    [{ uploads: { memoryThreshold: -5 } }, /option uploads.memoryThreshold/],
    [{ proxyHops: -1 }, /option proxyHops must be a whole number of proxies/],
    [{ credentials: {} }, /option credentials must be a function/],
    [{ logger: console.log }, /option logger must be an object with error\(\) and warn\(\) methods/],
    [{ requestIdHeader: 'x request id' }, /option requestIdHeader must be a header name/],
    [{ maxRunMs: -1 }, /option maxRunMs must be a number of milliseconds, 0 or Infinity/],
    [{ bodyTimeoutMs: 0 }, /option bodyTimeoutMs must be a positive number of milliseconds/],
    [{ minBodyRate: true }, /option minBodyRate must be an object \{ bytesPerSecond, graceMs \} or false; got true/],
    [{ minBodyRate: { bytesPerSecond: 0 } }, /option minBodyRate.bytesPerSecond must be a positive number of bytes per second; got 0/],
    [{ minBodyRate: { graceMs: Infinity } }, /option minBodyRate.graceMs must be a positive number of milliseconds/],
    [{ minBodyRate: { rate: 1 } }, /unknown option minBodyRate.rate/],
    [{ uploads: { tempDir: join(A_FILE, 'uploads') } }, /option uploads.tempDir must be a directory this process can create and write/],
    [[], /option options must be an object/],
  ] as const) {
    it(`throws a TypeError naming the option for ${JSON.stringify(options)}`, () => {
      expect(() => resolveOptions(options as never)).to.throw(TypeError, message);
    });
  }
});

describe('options for living in a host', () => {
  it('defaults the logger, the request id header, the run limit and the body timeout', () => {
    const options = resolveOptions();
    expect(options).to.deep.include({ requestIdHeader: 'x-request-id', maxRunMs: 600_000, bodyTimeoutMs: 30_000 });
    expect(options.minBodyRate).to.deep.equal({ bytesPerSecond: 500, graceMs: 10_000 });
    expect(resolveOptions({ minBodyRate: { graceMs: 20_000 } }).minBodyRate).to.deep.equal({ bytesPerSecond: 500, graceMs: 20_000 });
    expect(resolveOptions({ minBodyRate: false }).minBodyRate).to.equal(undefined);
    expect(resolveOptions({ maxRunMs: 0 }).maxRunMs).to.equal(Infinity);
    expect(resolveOptions({ requestIdHeader: 'X-Correlation-Id' }).requestIdHeader).to.equal('x-correlation-id');
  });

  it('creates a missing uploads.tempDir at the factory', () => {
    const parent = mkdtempSync(join(tmpdir(), 'ww-options-'));
    try {
      const tempDir = join(parent, 'not', 'yet');
      resolveOptions({ uploads: { tempDir } });
      expect(statSync(tempDir).isDirectory()).to.equal(true);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('writes one JSON line per record to stderr when the host gives no logger', () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => { written.push(chunk); return true; }) as typeof process.stderr.write;
    try {
      resolveOptions().logger.error({ callId: 'c-1', err: { message: 'boom' } }, 'webhook call answered 500 INTERNAL_ERROR');
    } finally {
      process.stderr.write = write;
    }
    expect(written).to.have.length(1);
    expect(written[0]?.endsWith('\n')).to.equal(true);
    expect(JSON.parse(written[0] as string)).to.deep.include({
      level: 'error', name: 'workflow-webhooks', msg: 'webhook call answered 500 INTERNAL_ERROR', callId: 'c-1', err: { message: 'boom' },
    });
  });

  it('drops a failure of the host\'s logger instead of failing the call', () => {
    const logger = resolveOptions({ logger: { error: () => { throw new Error('logger down'); }, warn: () => undefined } }).logger;
    expect(() => logger.error({}, 'x')).to.not.throw();
  });
});

describe('proxyHops from PLATFORM_PROXY_HOPS', () => {
  afterEach(() => { delete process.env.PLATFORM_PROXY_HOPS; });

  it('reads the environment variable once, at the factory, when the option is not given', () => {
    process.env.PLATFORM_PROXY_HOPS = '2';
    expect(resolveOptions().proxyHops).to.equal(2);
    expect(resolveOptions({ proxyHops: 0 }).proxyHops).to.equal(0);
  });

  it('refuses a value that is not a number of proxies', () => {
    process.env.PLATFORM_PROXY_HOPS = 'two';
    expect(() => resolveOptions()).to.throw(TypeError, /PLATFORM_PROXY_HOPS/);
  });
});

describe('createWebhookMiddleware() arguments', () => {
  it('checks the registry and the executor at once', () => {
    expect(() => createWebhookMiddleware({} as never, async () => ({ items: [] }))).to.throw(TypeError, /WebhookRegistry/);
    expect(() => createWebhookMiddleware(new MemoryWebhookRegistry(), undefined as never)).to.throw(TypeError, /executor/);
    expect(() => createWebhookMiddleware(new MemoryWebhookRegistry(), async () => ({ items: [] }), { limits: { bodySize: 0 } })).to.throw(TypeError);
  });
});
