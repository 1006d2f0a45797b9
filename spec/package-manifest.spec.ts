import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { checkPack, PACKED_BUDGET_BYTES } from '../scripts/check-package.js';
import { docFiles, readDoc } from './support/readme/blocks.js';

/** What the published package.json promises a host: entry points every resolver finds, honest dependencies. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
  typesVersions: Record<string, Record<string, string[]>>;
  files: string[];
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  engines: { node: string };
  repository?: unknown; homepage?: unknown; bugs?: unknown; license?: string;
};
const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };

describe('package.json', () => {
  it('installs on the lowest Node it declares: every runtime dependency, direct or not, accepts that Node (npm install --engine-strict)', () => {
    const lowest = semver.minVersion(manifest.engines.node)?.version as string;
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean; peer?: boolean; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.dev !== true && entry.devOptional !== true && entry.peer !== true)
      .filter(([, entry]) => !Array.isArray(entry.engines) && entry.engines?.node !== undefined && !semver.satisfies(lowest, entry.engines.node))
      .map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')} needs node ${(entry.engines as { node: string }).node}`);
    expect(lowest).to.equal('20.19.0');
    expect(refusing, `runtime dependencies that refuse Node ${lowest}`).to.deep.equal([]);
  });

  it('maps every typed entry point for moduleResolution node10 too, to the same declarations (typesVersions)', () => {
    const mapped = manifest.typesVersions['*'] ?? {};
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (subpath === '.' || subpath === './package.json') continue;
      const types = typeof target === 'string' ? target : target.types ?? target.default;
      if (types === undefined || !/\.d\.ts$|\.json$/.test(types)) continue;
      expect(mapped[subpath.slice(2)], subpath).to.deep.equal([types]);
    }
  });

  it('ships no source maps, so none points to a file it lacks: tsc and the console bundle write none, and lib/ sources stay out', () => {
    expect(tsconfig.compilerOptions).to.not.have.any.keys('sourceMap', 'declarationMap', 'inlineSourceMap');
    expect(readFileSync(join(root, 'scripts/build-console.ts'), 'utf8')).to.match(/\bsourcemap: false,/);
    expect(manifest.files).to.deep.equal(['dist', 'CHANGELOG.md']);
  });

  it('checks the packed package after every CI build: within 600 kB, every export shipped, no dangling map', () => {
    expect(PACKED_BUDGET_BYTES).to.equal(600_000);
    expect((manifest as { scripts?: Record<string, string> }).scripts?.['check:size']).to.equal('node --import tsx scripts/check-package.ts');
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    expect(ci.indexOf('npm run check:size')).to.be.greaterThan(ci.indexOf('npm run build >'));
  });

  it('documents every entry point of the exports map in the API reference, which fails on any warning and runs in CI after the build', () => {
    const typedoc = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as { entryPoints: string[]; treatWarningsAsErrors?: boolean; out?: string };
    const sources = Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [] : [target['workflow-webhooks-source']]))
      .filter((source): source is string => source !== undefined).map((source) => source.replace(/^\.\//, ''));
    expect([...typedoc.entryPoints].sort()).to.deep.equal([...sources].sort());
    expect(typedoc.treatWarningsAsErrors).to.equal(true);
    expect(typedoc.out).to.equal('docs/api');
    expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).to.include('docs/api/');
    expect((manifest as { scripts?: Record<string, string> }).scripts?.docs).to.equal('typedoc');
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    expect(ci.indexOf('npm run docs')).to.be.greaterThan(ci.indexOf('npm run build >'));
  });

  describe('the packed-package check (scripts/check-package.ts)', () => {
    const file = (path: string): { path: string; size: number } => ({ path, size: 1 });
    const exportsMap = { '.': { 'workflow-webhooks-source': './lib/index.ts', types: './dist/index.d.ts', default: './dist/index.js' } };
    const texts: Record<string, string> = { 'dist/index.js': 'export {};\n', 'dist/index.d.ts': 'export {};\n' };
    const read = (path: string): string => texts[path] ?? '';

    it('passes a package within budget whose exports are all shipped (the repository-only source condition aside)', () => {
      expect(checkPack({ size: 420_000, unpackedSize: 1_400_000, files: [file('dist/index.js'), file('dist/index.d.ts')] }, exportsMap, read)).to.deep.equal([]);
    });

    it('fails above 600 kB packed', () => {
      expect(checkPack({ size: 892_000, unpackedSize: 3_500_000, files: [file('dist/index.js'), file('dist/index.d.ts')] }, exportsMap, read))
        .to.deep.equal(['The packed package is 892.0 kB, over the 600 kB budget: see what npm pack --dry-run lists.']);
    });

    it('fails an export whose file is not shipped', () => {
      expect(checkPack({ size: 1, unpackedSize: 1, files: [file('dist/index.js')] }, exportsMap, read))
        .to.deep.equal(['exports["."] names ./dist/index.d.ts, which the package does not contain.']);
    });

    it('fails a file pointing to a map not shipped, and a map pointing to a source not shipped', () => {
      const withMaps: Record<string, string> = {
        ...texts,
        'dist/index.js': 'export {};\n//# sourceMappingURL=index.js.map\n',
        'dist/index.d.ts': 'export {};\n//# sourceMappingURL=index.d.ts.map\n',
        'dist/index.js.map': JSON.stringify({ version: 3, sources: ['../lib/index.ts'], mappings: '' }),
      };
      expect(checkPack({ size: 1, unpackedSize: 1, files: ['dist/index.js', 'dist/index.d.ts', 'dist/index.js.map'].map(file) }, exportsMap, (path) => withMaps[path] ?? ''))
        .to.deep.equal(['dist/index.d.ts points to the source map dist/index.d.ts.map, which the package does not contain.', 'dist/index.js.map points to the source lib/index.ts, which the package does not contain.']);
    });
  });

  it('asks for each peer only as optional, the package of one entry point: a host that never imports it installs nothing new', () => {
    const peers = Object.keys(manifest.peerDependencies ?? {}).sort();
    expect(peers).to.deep.equal(['@opentelemetry/api', 'bullmq', 'fastify', 'pg', 'redis']);
    for (const name of peers) expect(manifest.peerDependenciesMeta?.[name], name).to.deep.equal({ optional: true });
    for (const name of peers) expect(manifest.dependencies, name).to.not.have.property(name);
    // Fastify 5 and later; an open range, so that a host on a newer Fastify through middie is never refused at install.
    expect(manifest.peerDependencies?.fastify).to.equal('>=5.0.0');
    expect(manifest.exports['./fastify']).to.deep.equal({
      'workflow-webhooks-source': './lib/fastify/index.ts', types: './dist/fastify/index.d.ts', default: './dist/fastify/index.js',
    });
    // node-postgres 8 and later, for workflow-webhooks/postgres only.
    expect(manifest.peerDependencies?.pg).to.equal('>=8.0.0');
    expect(manifest.exports['./postgres']).to.deep.equal({
      'workflow-webhooks-source': './lib/postgres/index.ts', types: './dist/postgres/index.d.ts', default: './dist/postgres/index.js',
    });
  });

  it('does not ask for Express: the middleware uses only Node\'s own HTTP API', () => {
    expect(manifest.peerDependencies ?? {}).to.not.have.property('express');
    expect(manifest.dependencies).to.not.have.property('express');
  });

  it('names its licence, repository, homepage and issue tracker, and ships the licence and changelog', () => {
    expect(manifest.license).to.equal('MIT');
    expect(manifest).to.include.keys('repository', 'homepage', 'bugs');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).to.match(/^MIT License\n\nCopyright \(c\) \d{4} workflow-webhooks contributors/);
    expect(existsSync(join(root, 'CHANGELOG.md'))).to.equal(true);
    expect(manifest.files).to.include('CHANGELOG.md');
  });

  it('ships the JSON Schema at the path README and the guides tell editors to use, the one the build writes and the export names', () => {
    const docs = docFiles().map((file) => readDoc(file)).join('\n');
    const paths = new Set([...docs.matchAll(/node_modules\/workflow-webhooks\/([\w./-]+\.schema\.json)/g)].map((match) => match[1]));
    expect([...paths]).to.deep.equal(['dist/definitions/node-description.schema.json']);
    expect(manifest.exports['./definitions/schema.json']).to.equal('./dist/definitions/node-description.schema.json');
    expect((manifest as { scripts?: Record<string, string> }).scripts?.build).to.include('schema --out dist/definitions/node-description.schema.json');
    expect(manifest.files).to.include('dist');
  });

  it('reviews every install script of its dependency tree for npm 11 (allowScripts), and README tells a user which to allow', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const scripted = Object.entries(lock.packages).filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    const allowed = (manifest as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    expect(scripted).to.not.deep.equal([]);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const name of scripted) {
      expect(allowed[name], `allowScripts.${name}`).to.be.a('boolean');
      expect(readme, name).to.include(`\`${name}\``);
    }
    const command = /`npm approve-scripts ([^`]+)`/.exec(readme)?.[1]?.split(' ') ?? [];
    expect(command.slice().sort()).to.deep.equal(scripted.slice().sort());
  });

  it('says in README why it needs each of its dependencies', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Dependencies'));
    for (const name of Object.keys(manifest.dependencies)) expect(table, name).to.include(`| \`${name}\` |`);
  });
});
