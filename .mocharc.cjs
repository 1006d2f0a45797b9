// Beside package.json's "mocha" settings (mocha merges both).
// - In CI (CI is set: .ci/run, every hosted CI) a `.only` left in a spec fails the run instead of quietly running
//   that one test; locally `.only` still works while writing.
// - The spec glob lives here, not in package.json: mocha adds a configured glob to the files named on its command
//   line, so `npx mocha spec/core/errors.spec.ts` would run the whole suite. Files named (anything under spec/) run
//   alone; no file named runs everything, as `npm test` does.
// - spec/support/hang-guard.ts ends (and fails) a run still held open 20 s after its last test, naming what holds
//   it, instead of hanging; mocha adds this "require" to package.json's.
const named = process.argv.slice(2).some((arg) => arg.startsWith('spec/') || arg.startsWith('./spec/'));
module.exports = { 'forbid-only': Boolean(process.env.CI), spec: named ? [] : ['spec/**/*.spec.ts'], require: ['spec/support/hang-guard.ts'] };
