/**
 * The 413 errors that name the payload limits, and which limit holds a body read whole (the limits themselves are
 * resolved in core/option-limits.ts).
 */
import { WebhookError, type WebhookErrorCode } from '../../core/errors.js';
import type { PayloadLimits } from '../../core/option-limits.js';
import type { Kind } from './body-types.js';

export type { PayloadLimits } from '../../core/option-limits.js';

const OPTION_OF: Partial<Record<WebhookErrorCode, keyof PayloadLimits>> = {
  LIMIT_BODY_SIZE: 'bodySize',
  LIMIT_JSON_SIZE: 'jsonSize',
  LIMIT_XML_SIZE: 'xmlSize',
  LIMIT_BINARY_SIZE: 'binarySize',
  LIMIT_FILE_SIZE: 'fileSize',
  LIMIT_TOTAL_FILE_SIZE: 'totalFileSize',
  LIMIT_FILE_COUNT: 'files',
  LIMIT_FIELD_COUNT: 'fields',
  LIMIT_PART_COUNT: 'parts',
  LIMIT_FIELD_SIZE: 'fieldSize',
  LIMIT_FIELD_NAME_SIZE: 'fieldNameSize',
};

const WHAT: Partial<Record<WebhookErrorCode, string>> = {
  LIMIT_BODY_SIZE: 'The request body is larger than the limit of {n} bytes.',
  LIMIT_JSON_SIZE: 'The JSON body is larger than the limit of {n} bytes.',
  LIMIT_XML_SIZE: 'The XML body is larger than the limit of {n} bytes.',
  LIMIT_BINARY_SIZE: 'The uploaded body is larger than the limit of {n} bytes.',
  LIMIT_FILE_SIZE: 'An uploaded file is larger than the limit of {n} bytes per file.',
  LIMIT_TOTAL_FILE_SIZE: 'The uploaded files are larger than the limit of {n} bytes in total.',
  LIMIT_FILE_COUNT: 'The form has more than {n} files.',
  LIMIT_FIELD_COUNT: 'The form has more than {n} fields.',
  LIMIT_PART_COUNT: 'The form has more than {n} parts.',
  LIMIT_FIELD_SIZE: 'A form field value is longer than {n} bytes.',
  LIMIT_FIELD_NAME_SIZE: 'A form field name is longer than {n} bytes.',
};

/** The 413 for one limit: the message names the limit, the hint the option that raises it. */
export function limitError(code: WebhookErrorCode, limits: PayloadLimits): WebhookError {
  const option = OPTION_OF[code] ?? 'bodySize';
  return new WebhookError(code, (WHAT[code] ?? '').replace('{n}', String(limits[option])), {
    hint: `Send less, or raise the middleware option limits.${option}.`,
  });
}

/**
 * The limit of a body read whole: `bodySize`, or for JSON and XML their own lower limit. Those two are parsed on the
 * event loop, where parsing costs far more per byte than reading (XML most of all), and no other call is served
 * while it runs; a lower size is what bounds that pause.
 */
function bindingLimit(kind: Kind, limits: PayloadLimits): 'bodySize' | 'jsonSize' | 'xmlSize' {
  if (kind === 'json') return limits.jsonSize < limits.bodySize ? 'jsonSize' : 'bodySize';
  if (kind === 'xml') return limits.xmlSize < limits.bodySize ? 'xmlSize' : 'bodySize';
  return 'bodySize';
}

/** Bytes a body of this kind read whole may have. */
export function wholeBodySize(kind: Kind, limits: PayloadLimits): number {
  return limits[bindingLimit(kind, limits)];
}

const CODE_OF = { bodySize: 'LIMIT_BODY_SIZE', jsonSize: 'LIMIT_JSON_SIZE', xmlSize: 'LIMIT_XML_SIZE' } as const;

/** The 413 of a body of this kind read whole, naming the limit that holds it. */
export function wholeBodyTooLarge(kind: Kind, limits: PayloadLimits): WebhookError {
  return limitError(CODE_OF[bindingLimit(kind, limits)], limits);
}
