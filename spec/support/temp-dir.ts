/** A fresh upload directory per test, so a spec can count what a call left behind. */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir { path: string; files(): string[]; remove(): void }

export function makeTempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), 'ww-spec-'));
  return {
    path,
    files: () => readdirSync(path),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** Waits until `check` holds (cleanup runs after the response is on the wire), at most `ms`. */
export async function eventually(check: () => boolean, ms = 1000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Every regular file under `dir`, at any depth: a call's uploads sit in a private directory of their own. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => join(dir, name)).filter((path) => {
    try {
      return statSync(path).isFile();
    } catch {
      return false;
    }
  });
}
