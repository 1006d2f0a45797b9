// Mutation testing of the request path, run outside `npm test` by scripts/mutate.ts (`npm run mutate -- guards`):
// it mutates lib/webhooks/ and the core under it, lib/core/ (or the one stage folder named in WWH_MUTATE_STAGE, or
// `core`) and runs only spec/webhooks/ and spec/core/ against each mutant (the whole takes hours on two cores). Stryker 9 (Node 20; 10 needs Node 22)
// comes through npx with its own mocha 11 (its mocha runner does not take mocha 12 yet), so nothing here is a
// dependency of the package. Reports land in reports/mutation/.
const stage = process.env.WWH_MUTATE_STAGE;
// The stage folder, or the loose wiring files beside them ('wiring'), or the core ('core'), or all of them.
const folderOf = (name) => (name === 'core' ? 'lib/core' : `lib/webhooks/${name}`);
// `validate` also takes the payload-schema compiler it drives, lib/webhooks/registry/json-schema/, which `registry`
// leaves out, so each file belongs to one stage.
const scope = stage === undefined ? ['lib/webhooks/**/*.ts', 'lib/core/**/*.ts']
  : stage === 'wiring' ? ['lib/webhooks/*.ts']
    : stage === 'validate' ? ['lib/webhooks/validate/*.ts', 'lib/webhooks/registry/json-schema/*.ts']
      : stage === 'registry' ? ['lib/webhooks/registry/**/*.ts', '!lib/webhooks/registry/json-schema/**']
        : [`${folderOf(stage)}/**/*.ts`];
const report = `reports/mutation/${stage ?? 'webhooks'}`;
// Against each mutant run the stage's own specs (spec/ mirrors lib/), or with WWH_MUTATE_ALL_SPECS=1 all of
// spec/webhooks/ and spec/core/. The request path is covered by almost every spec, so under all of them each surviving mutant
// costs a whole suite (about a minute here); a stage's own specs make a folder an affair of minutes, and their score
// is a floor: a mutant they miss may still be killed elsewhere.
const ownSpecs = stage === undefined || process.env.WWH_MUTATE_ALL_SPECS === '1'
  ? ['spec/webhooks/**/*.spec.ts', 'spec/core/**/*.spec.ts']
  : stage === 'wiring' ? ['spec/webhooks/*.spec.ts']
    : stage === 'validate' ? ['spec/webhooks/validate/*.spec.ts', 'spec/webhooks/registry/json-schema/*.spec.ts', 'spec/webhooks/registry/payload-schemas.spec.ts']
      : [`${folderOf(stage).replace(/^lib/, 'spec')}/**/*.spec.ts`];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  // Type-only files have nothing to mutate.
  mutate: [...scope, '!lib/core/*-types.ts', '!lib/core/types.ts', '!lib/core/waits.ts', '!lib/core/wait-hook.ts'],
  testRunner: 'mocha',
  mochaOptions: {
    spec: ownSpecs,
    // package.json's "mocha" settings: extension ts, the 5 s timeout, and the services hook that starts redis-server.
    package: 'package.json',
  },
  // What package.json's "node-option" gives mocha: TypeScript through tsx, the in-repo source condition, gc.
  testRunnerNodeArgs: ['--import', 'tsx', '--conditions=workflow-webhooks-source', '--expose-gc'],
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 10000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `${report}.html` },
  jsonReporter: { fileName: `${report}.json` },
  // No tsconfig rewrite in the sandbox (it needs typescript beside Stryker, which npx does not install when the
  // project has it): tsx transpiles without one, and the sandbox keeps the repo's layout.
  tsconfigFile: 'no-tsconfig-rewrite.json',
  // The `// @ts-nocheck` Stryker writes goes only into the mutated files: a spec compares readme-registry.ts with
  // README byte for byte.
  disableTypeChecks: 'lib/{webhooks,core}/**/*.ts',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
