/**
 * Binary property names of uploaded files, as the known platform gives them: the field name without a trailing
 * `[]`; several files on one field → `field0`, `field1`, …; a nameless field → `data0`, …; with the node option
 * binaryPropertyName → `<name>0`, `<name>1`, … across all files.
 */
import type { BinaryData } from '../../core/types.js';
import { describeBinary } from './binary-meta.js';
import { setOwn } from '../body/fields.js';

export interface UploadedFile {
  field: string | undefined;
  fileName: string | undefined;
  mimeType: string;
  size: number;
  chunks?: readonly Buffer[];
  path?: string;
}

function toBinary(file: UploadedFile): BinaryData {
  return describeBinary({ mimeType: file.mimeType, fileName: file.fileName, bytes: file.size, chunks: file.chunks, path: file.path });
}

export function nameUploadedFiles(
  files: readonly UploadedFile[],
  binaryPropertyName: string | undefined,
  reserved: ReadonlySet<string>,
): Record<string, BinaryData> | undefined {
  if (files.length === 0) return undefined;
  const binary: Record<string, BinaryData> = {};
  const base = files.map((file) => binaryPropertyName ?? (file.field ?? '').replace(/\[\]$/, ''));
  const counts = new Map<string, number>();
  for (const name of base) counts.set(name, (counts.get(name) ?? 0) + 1);
  const seen = new Map<string, number>();
  files.forEach((file, index) => {
    const stem = base[index] as string;
    const number = seen.get(stem) ?? 0;
    seen.set(stem, number + 1);
    const numbered = binaryPropertyName !== undefined || stem === '' || (counts.get(stem) ?? 0) > 1 || reserved.has(stem);
    setOwn(binary, numbered ? `${stem || 'data'}${number}` : stem, toBinary(file));
  });
  return binary;
}
