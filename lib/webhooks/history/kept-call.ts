/**
 * One call as history keeps it, gathered while it is served and written when it ends: the request as its run got it
 * (credentials redacted by the one redaction function, the body and files only up to their caps), the first error
 * it met, the run's answer, the job that holds it. Nothing here waits on a store: the record joins the writer's
 * batch once the call's connection is done and its run over.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { parseQuery } from '../payload/query.js';
import { PayloadInvalidError, type WebhookError } from '../../core/errors.js';
import type { HistoryData, HistoryFile, HistoryRecord } from '../../core/history.js';
import type { ExecutionResult, Item, WebhookRun } from '../../core/types.js';
import { callSecrets, redactSecrets, type CallSecrets } from '../guards/secrets.js';
import type { RegisteredWebhook } from '../registry/contract.js';
import type { CallEndListener, CallState } from '../run/call-state.js';
import { keptBody, keptJson, keptRequestParts, type RequestParts } from './kept-json.js';
import type { HistoryRecorder } from './recorder.js';

/** Characters of a workflow's own error message kept. */
const MAX_CAUSE = 2000;

type Settled = { output?: ExecutionResult; error?: WebhookError };
type CallEnd = { status: number | undefined; error: WebhookError | undefined; requestId: string; replayOf?: string; replayedBy?: string };

export class KeptCall implements CallEndListener {
  readonly #recorder: HistoryRecorder;
  readonly #webhook: RegisteredWebhook;
  readonly #at = Date.now();
  readonly #startedAt = performance.now();
  readonly #path: string;
  readonly #route: string;
  readonly #waitId: string | undefined;
  readonly #method: string;
  /** Made by request(), or by finish() for a call refused before its run. */
  #data: HistoryData | undefined;
  /** Set by finish(): the record is made, and an answer settled later (a run stopped past its deadline) is not kept. */
  #finished = false;
  /** The body kept whole as its JSON text, where it needed no redaction: it joins the record's text as it is. */
  #bodyText: string | undefined;
  #secrets: CallSecrets | undefined;
  #error: WebhookError | undefined;
  #jobId: string | undefined;
  #files: Promise<void> | undefined;
  #arrived: { headers: IncomingHttpHeaders; search: string; checkedHeader: string | undefined } | undefined;

  /** `where.path`: the path as shown (after the mount, credential-named parameters redacted). */
  constructor(recorder: HistoryRecorder, webhook: RegisteredWebhook, where: { method: string; path: string; route: string; waitId: string | undefined }) {
    this.#recorder = recorder;
    this.#webhook = webhook;
    this.#path = where.path;
    this.#route = where.route;
    this.#waitId = where.waitId;
    this.#method = where.method;
  }

  /**
   * What a call refused before its run was built (a malformed body, a schema's 422) came with: its headers and query,
   * redacted as a run's would be. A call that reaches its run is kept as the run got it instead (`request`).
   */
  arrived(headers: IncomingHttpHeaders, search: string, checkedHeader: string | undefined): void {
    this.#arrived = { headers, search, checkedHeader };
  }

  /** What the run got: its trigger item, redacted; `checkedHeader`: the header the node's authentication checked. */
  request(run: WebhookRun, checkedHeader: string | undefined, bodyKind: string | undefined): void {
    this.#arrived = undefined;
    const { settings } = this.#recorder;
    const item = run.items[0] as Item;
    const secrets = callSecrets(run.items, checkedHeader);
    this.#secrets = secrets;
    const shown = keptRequestParts({ headers: item.json.headers, query: item.json.query, params: item.json.params } as RequestParts, secrets);
    const data: HistoryData = { headers: shown.headers, query: shown.query, params: shown.params, bodyKept: 'none', bodySize: 0, files: [] };
    if (bodyKind !== undefined) data.bodyKind = bodyKind;
    // Where callers reached the address (origin and mount path), so that a replay's webhookUrl is the original's.
    const { webhookUrl } = item.json;
    const baseUrl = typeof webhookUrl === 'string' ? this.#recorder.baseUrlOf(webhookUrl, this.#route) : undefined;
    if (baseUrl !== undefined) data.baseUrl = baseUrl;
    const sent = Number((item.json.headers as Record<string, unknown> | undefined)?.['content-length']);
    const body = keptBody(item.json.body, settings.bodyBytes, secrets, Number.isSafeInteger(sent) && sent >= 0 ? sent : undefined);
    data.bodySize = body.size;
    data.bodyKept = body.kept;
    if (body.text !== undefined) this.#bodyText = body.text;
    else if (body.kept !== 'none') data.body = body.value;
    if (item.binary !== undefined) this.#keepFiles(item.binary, data.files, secrets);
    this.#data = data;
  }

  /** The run's files: names, types and sizes, and their bytes up to `fileBytes`. */
  #keepFiles(binary: NonNullable<Item['binary']>, files: HistoryFile[], secrets: CallSecrets): void {
    const { fileBytes } = this.#recorder.settings;
    const reads: Promise<void>[] = [];
    for (const [property, file] of Object.entries(binary)) {
      const size = file.bytes ?? file.data?.length ?? 0;
      const kept: HistoryFile = { property, mimeType: file.mimeType, size };
      if (file.fileName !== undefined) kept.fileName = redactSecrets(file.fileName, secrets);
      files.push(kept);
      if (size > fileBytes) continue;
      if (file.data !== undefined) kept.data = file.data.toString('base64');
      // A file on disk is read now, before the run's end removes it; the record waits for it, the call does not.
      else if (file.path !== undefined) reads.push(readFile(file.path).then((bytes) => { kept.data = bytes.toString('base64'); }, () => undefined));
    }
    if (reads.length > 0) this.#files = Promise.all(reads).then(() => undefined);
  }

  /** The first error the call met is its cause (a later one only repeats it). */
  failed(error: WebhookError): void {
    this.#error ??= error;
  }

  /**
   * How the run ended: its output (the answer kept) or its failure; a callback for the run's answer. Made when asked,
   * not as a class field's arrow: run through tsx, esbuild names every such arrow of every instance with
   * Object.defineProperty (keepNames), 0.4 µs a call of the two on the benchmark (bench/README.md, "History").
   */
  get settled(): (outcome: Settled) => void {
    return (outcome) => { this.#settled(outcome); };
  }

  #settled(outcome: Settled): void {
    if (outcome.error !== undefined) this.failed(outcome.error);
    const { answerBytes } = this.#recorder.settings;
    if (outcome.output === undefined || answerBytes === 0 || this.#data === undefined || this.#finished) return;
    const items = outcome.output.items.map((item) => item.binary === undefined ? { json: item.json } : {
      json: item.json,
      binary: Object.fromEntries(Object.entries(item.binary).map(([name, file]) => [name, { fileName: file.fileName, mimeType: file.mimeType, bytes: file.bytes }])),
    });
    const answer = keptJson(items, answerBytes, this.#secrets);
    if (answer.kept !== 'none') {
      this.#data.answer = answer.value;
      this.#data.answerKept = answer.kept;
    }
  }

  get jobId(): string | undefined {
    return this.#jobId;
  }

  /** The hand-off stored the run as this job: a callback, made when asked as `settled` is. */
  get accepted(): (jobId: string) => void {
    return (jobId) => { this.#jobId = jobId; };
  }

  ended(state: CallState): void {
    this.#keep({ status: state.status, error: this.#error ?? state.stopReason, requestId: state.callId });
  }

  /** Makes the call's record and hands it to the writer (once its files are read); resolves with its id. */
  finish(end: CallEnd): Promise<string> | undefined {
    const id = this.#keep(end);
    return typeof id === 'string' ? Promise.resolve(id) : id;
  }

  /** finish() without a promise for a call that has no files to wait for: a call's own end needs no id. */
  #keep(end: CallEnd): string | Promise<string> | undefined {
    const { error } = end;
    this.#finished = true;
    this.#data ??= { query: {}, headers: {}, params: {}, bodyKept: 'none', bodySize: 0, files: [] };
    if (this.#arrived !== undefined) {
      const { headers, search, checkedHeader } = this.#arrived;
      const items = [{ json: { headers, query: parseQuery(search), params: {} } }];
      Object.assign(this.#data, redactSecrets(items[0]?.json, callSecrets(items, checkedHeader)));
      this.#arrived = undefined;
    }
    const fields: Omit<HistoryRecord, 'data'> = {
      id: '', at: this.#at, workflowId: this.#webhook.workflowId, nodeName: this.#webhook.nodeName, method: this.#method,
      path: this.#path, route: this.#route, durationMs: Math.round((performance.now() - this.#startedAt) * 10) / 10,
      requestId: end.requestId, instance: this.#recorder.settings.instance, replays: 0,
    };
    if (end.status !== undefined) fields.status = end.status;
    if (error !== undefined) {
      fields.code = error.code;
      this.#data.error = { code: error.code, message: error.message };
      // The workflow's own words are what a fix needs; they may echo the call, so its secrets are redacted from them.
      const cause = (error.cause as { message?: unknown } | undefined)?.message;
      if (error.code === 'WORKFLOW_FAILED' && typeof cause === 'string') {
        this.#data.error.cause = this.#secrets === undefined ? cause.slice(0, MAX_CAUSE) : redactSecrets(cause.slice(0, MAX_CAUSE), this.#secrets);
      }
      if (error instanceof PayloadInvalidError) this.#data.error.errors = error.errors.map(({ path, message }) => ({ path, message }));
    }
    if (this.#waitId !== undefined) fields.waitId = this.#waitId;
    if (this.#jobId !== undefined) fields.jobId = this.#jobId;
    if (end.replayOf !== undefined) fields.replayOf = end.replayOf;
    if (end.replayedBy !== undefined) fields.replayedBy = end.replayedBy;
    // `data` last, as the record's text is made (record-text.ts).
    const record = fields as HistoryRecord;
    record.data = { clear: this.#data };
    if (!this.#recorder.keeps(this.#webhook, record) && end.replayOf === undefined) return undefined;
    const files = this.#files;
    const bodyText = this.#bodyText;
    if (files === undefined) return this.#recorder.write(record, bodyText);
    const written = files.then(() => this.#recorder.write(record, bodyText));
    this.#recorder.writer.preparing(written);
    return written;
  }
}
