/**
 * Turns what a test listen captured (the run's trigger items, the workflow's output, its hints) into plain JSON
 * for the page. Binary entries keep their name, type and size and lose their bytes: an editor shows what arrived,
 * and the bytes may be large, or a temp file that is removed once the run settles.
 */
import type { BinaryData, ExecutionResult, Item, WebhookRun } from 'workflow-webhooks';
import type { BinaryDto, ItemDto, RunDto } from './protocol.js';

function binaryOf(entry: BinaryData): BinaryDto {
  const { fileName, mimeType, fileType, fileSize, bytes } = entry;
  const size = bytes ?? entry.data?.length;
  return {
    mimeType,
    ...(fileName === undefined ? {} : { fileName }),
    ...(fileType === undefined ? {} : { fileType }),
    ...(fileSize === undefined ? {} : { fileSize }),
    ...(size === undefined ? {} : { bytes: size }),
  };
}

/** JSON that survives the wire: Buffers inside the JSON (rare, a code step may put one there) become their size. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null, (_key, inner: unknown) => (
    Buffer.isBuffer(inner) || (typeof inner === 'object' && inner !== null && (inner as { type?: unknown }).type === 'Buffer')
      ? `<${(inner as { data?: unknown[] }).data?.length ?? 0} bytes>`
      : inner
  )));
}

export function itemDto(item: Item): ItemDto {
  const binary = item.binary === undefined
    ? undefined
    : Object.fromEntries(Object.entries(item.binary).map(([name, entry]) => [name, binaryOf(entry)]));
  return binary === undefined ? { json: plain(item.json) } : { json: plain(item.json), binary };
}

export function runDto(run: WebhookRun, outcome: { output?: ExecutionResult; error?: Error } = {}): RunDto {
  const dto: RunDto = { trigger: run.items.map(itemDto), method: run.method, nodeName: run.nodeName };
  if (outcome.output !== undefined) {
    dto.output = {
      items: outcome.output.items.map(itemDto),
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

/** The failure and what caused it ("Error in workflow: No call arrived …"): the cause is what its author needs. */
function errorText(error: Error): string {
  const { cause } = error;
  return cause instanceof Error && cause.message !== error.message ? `${error.message}: ${cause.message}` : error.message;
}
