/**
 * The host's logger, or ours: anything with pino's or console's `error`/`warn` shape (an object of fields, then a
 * message). Without one, each line is one JSON object on stderr, so log collectors can read it and nothing is lost.
 */
export interface WebhookLogger {
  error(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
}

/** An error as log fields: its code, message and stack, and the chain of causes that explains it. */
export function errorFields(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: Record<string, unknown> = { type: error.name, message: error.message };
  const { code, status, hint } = error as { code?: unknown; status?: unknown; hint?: unknown };
  if (code !== undefined) fields.code = code;
  if (status !== undefined) fields.status = status;
  // What to change is for the operator reading the log as much as for the caller.
  if (hint !== undefined) fields.hint = hint;
  if (error.stack !== undefined) fields.stack = error.stack;
  if (error.cause !== undefined && depth < 5) fields.cause = errorFields(error.cause, depth + 1);
  return fields;
}

function line(level: 'error' | 'warn', fields: Record<string, unknown>, message: string | undefined): void {
  const record = { level, time: new Date().toISOString(), name: 'workflow-webhooks', msg: message, ...fields };
  let text: string;
  try {
    text = JSON.stringify(record);
  } catch {
    text = JSON.stringify({ level, time: record.time, name: record.name, msg: message });
  }
  process.stderr.write(`${text}\n`);
}

export const STDERR_LOGGER: WebhookLogger = {
  error: (fields, message) => line('error', fields, message),
  warn: (fields, message) => line('warn', fields, message),
};

/** A host logger that throws must not break a call: its failure is dropped, the call goes on. */
export function safeLogger(logger: WebhookLogger): WebhookLogger {
  const guard = (level: 'error' | 'warn') => (fields: Record<string, unknown>, message?: string): void => {
    try {
      logger[level](fields, message);
    } catch {
      // Nothing left to report it to.
    }
  };
  return { error: guard('error'), warn: guard('warn') };
}
