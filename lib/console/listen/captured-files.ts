/**
 * The files a test call brought, kept for download while its listen is the workflow's latest. Read at the moment
 * the call arrives, because a file on disk is a temp file the middleware removes once the run settles. Files
 * larger than `maxBytes` are described on the page but not kept. A file's name is the caller's, so it is kept
 * redacted (a download's name shows as much as the page does).
 */
import { readFileSync, statSync } from 'node:fs';
import { redactSecrets, type CallSecrets } from '../../webhooks/guards/secrets.js';
import type { Item } from '../../core/types.js';

export interface CapturedFile {
  data: Buffer;
  fileName: string;
  mimeType: string;
}

/** `<item>/<property>` → the file. */
export type CapturedFiles = Map<string, CapturedFile>;

function bytesOf(entry: { data?: Buffer; path?: string }, maxBytes: number): Buffer | undefined {
  if (entry.data !== undefined) return entry.data.length <= maxBytes ? entry.data : undefined;
  if (entry.path === undefined) return undefined;
  try {
    // Synchronous on purpose: the run may settle (and its temp files go) before an asynchronous read would start.
    return statSync(entry.path).size <= maxBytes ? readFileSync(entry.path) : undefined;
  } catch {
    return undefined;
  }
}

export function captureFiles(items: readonly Item[], maxBytes: number, secrets: CallSecrets): CapturedFiles {
  const files: CapturedFiles = new Map();
  items.forEach((item, index) => {
    for (const [property, entry] of Object.entries(item.binary ?? {})) {
      const data = bytesOf(entry, maxBytes);
      if (data !== undefined) files.set(`${index}/${property}`, { data, fileName: redactSecrets(entry.fileName ?? property, secrets), mimeType: entry.mimeType });
    }
  });
  return files;
}
