/**
 * Where the editor page's sources and bundle live. Apart from build.ts so that the server finds the bundle
 * without loading esbuild, a build tool it never needs at run time.
 */
import { fileURLToPath } from 'node:url';

export const PAGE_SOURCE_DIR = fileURLToPath(new URL('./page/', import.meta.url));
export const PAGE_BUNDLE_DIR = fileURLToPath(new URL('./dist/', import.meta.url));
