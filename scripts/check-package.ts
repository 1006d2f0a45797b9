/**
 * Checks the package as npm would pack it, after `npm run build`: its packed size stays within the budget, every file
 * the exports map names for users' resolvers is in it, and no shipped file points to a source map or source that is
 * not. CI runs it after the build (`npm run check:size`, from .ci/run); the rules themselves are checkPack(), which
 * spec/package-manifest.spec.ts checks on made-up listings without a build.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The packed (gzipped tarball) size a release may reach: 600 kB, what README promises users download. */
export const PACKED_BUDGET_BYTES = 600 * 1000;

/** The conditions only this repository's own tooling sets (tsx, esbuild): their targets are sources users never load. */
const REPOSITORY_CONDITIONS = new Set(['workflow-webhooks-source']);

/** What `npm pack --dry-run --json` reports of one package. */
export interface PackListing {
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

type ExportTarget = string | { [condition: string]: ExportTarget };

function targetsOf(target: ExportTarget): string[] {
  if (typeof target === 'string') return [target];
  return Object.entries(target).filter(([condition]) => !REPOSITORY_CONDITIONS.has(condition)).flatMap(([, inner]) => targetsOf(inner));
}

/** Each problem as a sentence; none when the package is fit to publish. `readText` reads a packed file's text. */
export function checkPack(listing: PackListing, exportsMap: Record<string, ExportTarget>, readText: (path: string) => string): string[] {
  const problems: string[] = [];
  const shipped = new Set(listing.files.map((file) => file.path));
  if (listing.size > PACKED_BUDGET_BYTES) {
    problems.push(`The packed package is ${(listing.size / 1000).toFixed(1)} kB, over the ${PACKED_BUDGET_BYTES / 1000} kB budget: see what npm pack --dry-run lists.`);
  }
  for (const [subpath, target] of Object.entries(exportsMap)) {
    for (const file of targetsOf(target)) {
      if (!shipped.has(posix.normalize(file))) problems.push(`exports["${subpath}"] names ${file}, which the package does not contain.`);
    }
  }
  for (const path of shipped) {
    if (!/\.(js|css|d\.ts)$/.test(path)) continue;
    const reference = /[#@] sourceMappingURL=([^\s*]+)/.exec(readText(path))?.[1];
    if (reference === undefined || reference.startsWith('data:')) continue;
    const map = posix.join(posix.dirname(path), reference);
    if (!shipped.has(map)) problems.push(`${path} points to the source map ${map}, which the package does not contain.`);
  }
  for (const path of shipped) {
    if (!path.endsWith('.map')) continue;
    const { sources = [], sourcesContent = [] } = JSON.parse(readText(path)) as { sources?: string[]; sourcesContent?: (string | null)[] };
    sources.forEach((source, index) => {
      const file = posix.join(posix.dirname(path), source);
      if (typeof sourcesContent[index] !== 'string' && !shipped.has(file)) problems.push(`${path} points to the source ${file}, which the package does not contain.`);
    });
  }
  return problems;
}

// Run as a script: `npm run check:size` (after `npm run build`).
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  if (!existsSync(join(root, 'dist', 'index.js'))) {
    process.stderr.write('No build to check: run npm run build first.\n');
    process.exit(1);
  }
  // --ignore-scripts: prepack would build again; the build being checked is the one just made.
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  const [listing] = JSON.parse(output) as PackListing[];
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, ExportTarget> };
  const problems = checkPack(listing as PackListing, manifest.exports, (path) => readFileSync(join(root, path), 'utf8'));
  const { size, unpackedSize, files } = listing as PackListing;
  process.stdout.write(`Packed ${(size / 1000).toFixed(1)} kB (budget ${PACKED_BUDGET_BYTES / 1000} kB), unpacked ${(unpackedSize / 1000).toFixed(1)} kB, ${files.length} files.\n`);
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
