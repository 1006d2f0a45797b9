// Beside package.json's "mocha" settings (mocha merges both): in CI (CI is set: .ci/run, every hosted CI) a `.only`
// left in a spec fails the run instead of quietly running that one test; locally `.only` still works while writing.
module.exports = { 'forbid-only': Boolean(process.env.CI) };
