/**
 * Bundles the editor page's browser code (page/editor.ts, page/preview.ts and page/style.css) with esbuild into
 * example-app/editor/dist/, which the server serves as /editor/assets/. `npm start` runs it first; the browser specs
 * call buildEditorPage() themselves. Run alone: `npm run build:editor`.
 */
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { PAGE_BUNDLE_DIR, PAGE_SOURCE_DIR } from './bundle-paths.js';

export interface PageBundle {
  /** Bytes of each output file, by name. */
  sizes: Record<string, number>;
}

/** Builds the bundles; fails when anything of Node's would reach the browser. */
export async function buildEditorPage(options: { minify?: boolean } = {}): Promise<PageBundle> {
  // Chunk names carry a hash: the chunks of an earlier build would stay behind.
  await rm(PAGE_BUNDLE_DIR, { recursive: true, force: true });
  const result = await build({
    entryPoints: ['editor.ts', 'preview.ts', 'style.css'].map((name) => `${PAGE_SOURCE_DIR}${name}`),
    outdir: PAGE_BUNDLE_DIR,
    bundle: true,
    // The two pages share the renderer and the library's checks: one chunk, cached once.
    splitting: true,
    chunkNames: 'shared-[hash]',
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    // The page uses the package's source, as `npm start` does, so that a change in lib/ shows without a build.
    conditions: ['workflow-webhooks-source'],
    // The definitions entry point also holds the lint CLI's loaders; the page never calls them, and the package's
    // `sideEffects: false` lets esbuild drop them. A Node import that survives fails the check below.
    external: ['node:*'],
    minify: options.minify ?? true,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'silent',
  });
  const sizes: Record<string, number> = {};
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (file.endsWith('.map')) continue;
    const name = file.slice(file.lastIndexOf('/') + 1);
    sizes[name] = output.bytes;
    if (name.endsWith('.js') && /\bfrom\s*["']node:|import\(["']node:/.test(await readFile(file, 'utf8'))) {
      throw new Error(`${name} imports a Node module; the editor page must use browser code only`);
    }
  }
  return { sizes };
}

// Run as a script (npm run build:editor). No top-level await: the specs import this module, and a module that
// awaits at its top cannot be loaded with require(), which would split services.ts into two copies.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildEditorPage().then(({ sizes }) => {
    const listed = Object.entries(sizes).map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(1)} kB`).join(', ');
    process.stdout.write(`Editor page bundled into example-app/editor/dist/: ${listed}\n`);
  }, (error: unknown) => {
    process.stderr.write(`Could not bundle the editor page: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
