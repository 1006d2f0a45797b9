/**
 * A kept call's JSON text, made once when the call's record is written, for the stores that keep text (all of ours):
 * the body of a call that needed no redaction comes as the JSON text its size was measured from, and goes into the
 * record's text as it is, never parsed back into a value and serialised again. The record a store gets stays a whole
 * `HistoryRecord` for any store: where only its body's text is held, the body reads as a value, parsed when first read.
 */
import type { HistoryRecord } from '../../core/history.js';

interface Texts {
  record: string;
  /** The clear body kept whole, as JSON text, where it came as text. */
  body?: string;
}

/** Weakly held: a record's text goes with the record once its batch is written. */
const texts = new WeakMap<HistoryRecord, Texts>();

/**
 * Makes the record's text, with `bodyText` (the JSON text of its clear data's body, kept whole) put in as the body;
 * `data` must be the record's last field, without `body` when `bodyText` is given. The record must not change after.
 */
export function freezeRecord(record: HistoryRecord, bodyText: string | undefined): void {
  const clear = 'clear' in record.data ? record.data.clear : undefined;
  if (bodyText === undefined || clear === undefined) {
    texts.set(record, { record: JSON.stringify(record) });
    return;
  }
  if (Object.keys(record).at(-1) !== 'data') {
    clear.body = JSON.parse(bodyText) as unknown;
    texts.set(record, { record: JSON.stringify(record), body: bodyText });
    return;
  }
  // `…,"data":{"clear":{…}}}`: the body goes in as the clear data's last field (clear data always has fields).
  const text = JSON.stringify(record);
  texts.set(record, { record: `${text.slice(0, -3)},"body":${bodyText}}}}`, body: bodyText });
  let body: { value: unknown } | undefined;
  Object.defineProperty(clear, 'body', {
    enumerable: true,
    configurable: true,
    get: () => {
      body ??= { value: JSON.parse(bodyText) };
      return body.value;
    },
    // Whoever changes the body has a record the text no longer tells.
    set: (value: unknown) => {
      body = { value };
      texts.delete(record);
    },
  });
}

/** The record's JSON text: the one made when it was written, else made now. */
export function recordText(record: HistoryRecord): string {
  return texts.get(record)?.record ?? JSON.stringify(record);
}

/** The JSON text of the record's clear body kept whole; undefined when it has none (or it is sealed). */
export function bodyText(record: HistoryRecord): string | undefined {
  const frozen = texts.get(record)?.body;
  if (frozen !== undefined) return frozen;
  if (!('clear' in record.data) || record.data.clear.bodyKept !== 'whole' || record.data.clear.body === undefined) return undefined;
  return JSON.stringify(record.data.clear.body);
}
