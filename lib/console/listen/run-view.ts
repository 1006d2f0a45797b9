/**
 * What a test listen captured, as the page shows it: the trigger items (files described with a download address
 * instead of their bytes), the curl line that sends the call again, and the workflow's output, hints or error. All
 * of it passes the core's redaction as one piece, with the secrets of the call, before anything is shown; the curl
 * line is written from the redacted trigger item, so it holds no secret either. A run whose caller waited for it
 * (lastNode) and took half of the time a caller may wait or more is marked slow, for the page's warning.
 */
import { redactSecrets, type CallSecrets } from '../../webhooks/guards/secrets.js';
import type { CapturedRun } from '../../webhooks/registry/contract.js';
import type { BinaryData, ExecutionResult, Item } from '../../core/types.js';
import type { BinaryDto, ItemDto, RunDto } from '../protocol.js';
import type { CapturedFiles } from './captured-files.js';
import { curlOf } from './curl.js';

/** What is needed to show a call besides the call: its secrets, and where its test address is. */
export interface CallView {
  secrets: CallSecrets;
  /** Where the test addresses are, as the console reaches the middleware: the curl line's address. */
  testBase: string;
  /** The node's path template for the call's method. */
  path: string | undefined;
  /** Whether the node's caller waits for the whole run (responseMode lastNode). */
  callerWaits: boolean;
  /** How long a caller may wait: the middleware's deadline (responseTimeoutMs), 100 s when it has none. */
  limitMs: number;
}

/** The share of the time a caller may wait from which a test run's wait is worth a warning. */
const SLOW_SHARE = 0.5;

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
  return itemDto(item, (property) => (files.has(`${index}/${property}`)
    ? `api/listens/${encodeURIComponent(listenId)}/binary/${index}/${encodeURIComponent(property)}`
    : undefined));
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {};
}

/** From the trigger item as shown (redacted), so that the line carries no secret the page does not show. */
function curlOfRun(method: string, item: ItemDto | undefined, view: CallView): string {
  const json = record(item?.json);
  return curlOf({
    method,
    testBase: view.testBase,
    path: view.path,
    params: record(json.params),
    query: record(json.query),
    headers: record(json.headers),
    body: json.body,
    files: Object.fromEntries(Object.entries(item?.binary ?? {}).map(([property, entry]) => [property, { fileName: entry.fileName ?? property, mimeType: entry.mimeType }])),
  });
}

/** The failure and what caused it: the cause is what the workflow's author needs. */
function errorText(error: Error): string {
  const { cause } = error;
  return cause instanceof Error && cause.message !== error.message ? `${error.message}: ${cause.message}` : error.message;
}

export function runDto(
  run: CapturedRun, listenId: string, files: CapturedFiles, view: CallView,
  outcome: { output?: ExecutionResult; error?: Error; waitedMs?: number } = {},
): RunDto {
  const dto: RunDto = {
    callId: run.callId,
    method: run.method,
    nodeName: run.nodeName,
    trigger: (run.items as Item[]).map((item, index) => triggerDto(item, index, listenId, files)),
    curl: '',
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
  if (view.callerWaits && outcome.waitedMs !== undefined && outcome.waitedMs >= view.limitMs * SLOW_SHARE) {
    dto.slow = { waitedMs: outcome.waitedMs, limitMs: view.limitMs };
  }
  const shown = redactSecrets(dto, view.secrets);
  shown.curl = curlOfRun(run.method, shown.trigger[0], view);
  return shown;
}
