// Mutation testing of the request path (issue 43), run outside `npm test`: `npm run mutate` mutates lib/webhooks/
// and runs only spec/webhooks/ against each mutant; `npm run mutate -- --mutate 'lib/webhooks/guards/**/*.ts'` runs
// one stage folder (the whole of lib/webhooks/ takes hours on two cores). Stryker 9 (Node 20; 10 needs Node 22)
// comes through npx with its own mocha 11 (its mocha runner does not take mocha 12 yet), so nothing here is a
// dependency of the package. Reports land in reports/mutation/.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['lib/webhooks/**/*.ts', '!lib/webhooks/**/*-types.ts', '!lib/webhooks/types.ts'],
  testRunner: 'mocha',
  mochaOptions: {
    spec: ['spec/webhooks/**/*.spec.ts'],
    // package.json's "mocha" settings: extension ts, the 5 s timeout, and the services hook that starts redis-server.
    package: 'package.json',
  },
  // What package.json's "node-option" gives mocha: TypeScript through tsx, the in-repo source condition, gc.
  testRunnerNodeArgs: ['--import', 'tsx', '--conditions=workflow-webhooks-source', '--expose-gc'],
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 10000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/webhooks.html' },
  jsonReporter: { fileName: 'reports/mutation/webhooks.json' },
  // No tsconfig rewrite in the sandbox (it needs typescript beside Stryker, which npx does not install when the
  // project has it): tsx transpiles without one, and the sandbox keeps the repo's layout.
  tsconfigFile: 'no-tsconfig-rewrite.json',
  // The `// @ts-nocheck` Stryker writes goes only into the mutated files: a spec compares readme-registry.ts with
  // README byte for byte.
  disableTypeChecks: 'lib/webhooks/**/*.ts',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
