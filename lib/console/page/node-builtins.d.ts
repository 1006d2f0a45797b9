/**
 * The definitions entry point also holds the lint CLI's schema loader, which imports node:module. The page never
 * calls it (esbuild drops it from the bundle), but the type check follows the import: this is the one Node name
 * the page's check may see, so that browser code still cannot use Buffer, process or any other Node API.
 */
declare module 'node:module' {
  export function createRequire(path: string | URL): NodeJS.Require;
}
declare namespace NodeJS {
  interface Require {
    (id: string): unknown;
    resolve(id: string): string;
  }
}
