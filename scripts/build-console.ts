/**
 * Bundles the console's page (lib/console/page/console.ts and console.css) with esbuild into dist/console/assets/,
 * which the console serves as `<mount>/assets/`. `npm run build` runs it after tsc; the browser specs call
 * buildConsolePage() themselves. Alone: `npm run build:console`.
 */
import { build } from 'esbuild';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSOLE_ASSET_DIR } from '../lib/console/assets.js';

const PAGE_DIR = fileURLToPath(new URL('../lib/console/page/', import.meta.url));

/**
 * The names this build writes: the two entry files, the chunks (the Preview's form renderer, loaded when that section
 * opens, and code it shares), and the source maps earlier builds wrote (removed when found). dist/ also holds the
 * tsc build: nothing else there is touched.
 */
const OWN_FILE = /^(console\.(js|css)|chunk-[A-Z0-9]{8}\.js)(\.map)?$/;

export interface ConsoleBundle {
  /** Bytes of each output file but the source maps, by name. */
  sizes: Record<string, number>;
}

/** Builds the page; fails when anything of Node's would reach the browser. */
export async function buildConsolePage(options: { minify?: boolean } = {}): Promise<ConsoleBundle> {
  const result = await build({
    entryPoints: ['console.ts', 'console.css'].map((name) => join(PAGE_DIR, name)),
    outdir: CONSOLE_ASSET_DIR,
    bundle: true,
    // The Preview section is imported when first shown: its renderer is a chunk of its own.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    // The page uses the package's source, so that a change in lib/ shows in the next build without tsc first.
    conditions: ['workflow-webhooks-source'],
    // The definitions entry point also holds the lint CLI's loaders; the page never calls them, and the package's
    // `sideEffects: false` lets esbuild drop them. A Node import that survives fails the check below.
    external: ['node:*'],
    minify: options.minify ?? true,
    // No source map: the package ships none (README, What the package contains); the bundle is built from lib/console/page/.
    sourcemap: false,
    write: false,
    logLevel: 'silent',
  });
  const sizes: Record<string, number> = {};
  for (const file of result.outputFiles) {
    const name = basename(file.path);
    if (!OWN_FILE.test(name)) throw new Error(`esbuild named an output ${name}, which the build would not clean up later; update OWN_FILE`);
    if (name.endsWith('.map')) continue;
    sizes[name] = file.contents.byteLength;
    if (name.endsWith('.js') && /\bfrom\s*["']node:|\bimport\s*\(?\s*["']node:/.test(file.text)) {
      throw new Error(`${name} imports a Node module; the console page must use browser code only`);
    }
  }
  // Written only once the whole build succeeded; the chunks of an earlier build (their names carry a hash) go.
  await mkdir(CONSOLE_ASSET_DIR, { recursive: true });
  const written = new Set(result.outputFiles.map((file) => basename(file.path)));
  for (const name of await readdir(CONSOLE_ASSET_DIR)) {
    if (OWN_FILE.test(name) && !written.has(name)) await rm(join(CONSOLE_ASSET_DIR, name), { force: true });
  }
  await Promise.all(result.outputFiles.map((file) => writeFile(file.path, file.contents)));
  return { sizes };
}

// Run as a script (npm run build:console). No top-level await: the specs import this module, and a module that
// awaits at its top cannot be loaded with require(), which would split the specs' shared services into two copies.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildConsolePage().then(({ sizes }) => {
    const listed = Object.entries(sizes).map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(1)} kB`).join(', ');
    process.stdout.write(`Console page bundled into dist/console/assets/: ${listed}\n`);
  }, (error: unknown) => {
    process.stderr.write(`Could not bundle the console page: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
