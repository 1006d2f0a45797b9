/**
 * What a test listen captured, as the page shows it: the trigger items (credential headers redacted, files
 * described with a download address instead of their bytes), the curl line that sends the call again, and the
 * workflow's output, hints or error.
 */
import type { BinaryData, ExecutionResult, Item, WebhookRun } from '../../webhooks/types.js';
import type { BinaryDto, ItemDto, RunDto } from '../protocol.js';
import type { CapturedFiles } from './captured-files.js';
import { curlOf } from './curl.js';
import { redactHeaders } from './redact.js';

function binaryOf(entry: BinaryData, download: string | undefined): BinaryDto {
  const { fileName, mimeType, fileType, fileSize, bytes } = entry;
  const size = bytes ?? entry.data?.length;
  const dto: BinaryDto = { mimeType };
  if (fileName !== undefined) dto.fileName = fileName;
  if (fileType !== undefined) dto.fileType = fileType;
  if (fileSize !== undefined) dto.fileSize = fileSize;
  if (size !== undefined) dto.bytes = size;
  if (download !== undefined) dto.download = download;
  return dto;
}

/** JSON that survives the wire: a Buffer inside the JSON (a code step may put one there) becomes its size. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null, (_key, inner: unknown) => (
    typeof inner === 'object' && inner !== null && (inner as { type?: unknown }).type === 'Buffer'
      ? `<${(inner as { data?: unknown[] }).data?.length ?? 0} bytes>`
      : inner
  )));
}

function itemDto(item: Item, downloadOf: (property: string) => string | undefined): ItemDto {
  const dto: ItemDto = { json: plain(item.json) };
  if (item.binary !== undefined) {
    dto.binary = Object.fromEntries(Object.entries(item.binary).map(([name, entry]) => [name, binaryOf(entry, downloadOf(name))]));
  }
  return dto;
}

function triggerDto(item: Item, index: number, listenId: string, files: CapturedFiles): ItemDto {
  const json = item.json as Record<string, unknown>;
  const redacted: Item = { ...item, json: 'headers' in json ? { ...json, headers: redactHeaders(json.headers) } : json };
  return itemDto(redacted, (property) => (files.has(`${index}/${property}`)
    ? `api/listens/${encodeURIComponent(listenId)}/binary/${index}/${encodeURIComponent(property)}`
    : undefined));
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {};
}

function curlOfRun(run: WebhookRun): string {
  const item = run.items[0] as Item | undefined;
  const json = record(item?.json);
  return curlOf({
    method: run.method,
    webhookUrl: typeof json.webhookUrl === 'string' ? json.webhookUrl : '',
    params: record(json.params),
    query: record(json.query),
    headers: record(json.headers),
    body: json.body,
    files: Object.fromEntries(Object.entries(item?.binary ?? {}).map(([property, entry]) => [property, entry.fileName ?? property])),
  });
}

/** The failure and what caused it: the cause is what the workflow's author needs. */
function errorText(error: Error): string {
  const { cause } = error;
  return cause instanceof Error && cause.message !== error.message ? `${error.message}: ${cause.message}` : error.message;
}

export function runDto(run: WebhookRun, listenId: string, files: CapturedFiles, outcome: { output?: ExecutionResult; error?: Error } = {}): RunDto {
  const dto: RunDto = {
    callId: run.callId,
    method: run.method,
    nodeName: run.nodeName,
    trigger: (run.items as Item[]).map((item, index) => triggerDto(item, index, listenId, files)),
    curl: curlOfRun(run),
  };
  if (outcome.output !== undefined) {
    dto.output = {
      items: outcome.output.items.map((item) => itemDto(item, () => undefined)),
      hints: (outcome.output.hints ?? []).map(({ message, type, location }) => ({
        message,
        ...(type === undefined ? {} : { type }),
        ...(location === undefined ? {} : { location }),
      })),
    };
  }
  if (outcome.error !== undefined) dto.error = errorText(outcome.error);
  return dto;
}
