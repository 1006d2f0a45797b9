/**
 * `npm test` runs this before mocha: it fails when a spec file breaks one of the rules of rules.ts (an it() that
 * asserts nothing, expect(x).to.equal(x), a wall-clock duration asserted). Speed claims live in bench/, which is not
 * read. Prints each finding as file:line rule text; exits 1 if there is any.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { checkSpec } from './rules.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function specFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return specFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const findings = specFiles(join(ROOT, 'spec')).flatMap((path) => checkSpec(relative(ROOT, path), readFileSync(path, 'utf8')));
for (const finding of findings) console.error(`${finding.file}:${finding.line} ${finding.rule}: ${finding.text}`);
if (findings.length > 0) {
  console.error(`check-specs: ${findings.length} finding(s); see scripts/check-specs/rules.ts for the rules`);
  process.exitCode = 1;
} else {
  console.log(`check-specs: ${specFiles(join(ROOT, "spec")).length} files under spec/, none with a test that cannot fail`);
}
