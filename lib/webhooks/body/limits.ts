/** The 413 errors that name the payload limits (the limits themselves are resolved in core/option-limits.ts). */
import { WebhookError, type WebhookErrorCode } from '../../core/errors.js';
import type { PayloadLimits } from '../../core/option-limits.js';

export type { PayloadLimits } from '../../core/option-limits.js';

const OPTION_OF: Partial<Record<WebhookErrorCode, keyof PayloadLimits>> = {
  LIMIT_BODY_SIZE: 'bodySize',
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
