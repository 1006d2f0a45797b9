/**
 * The host's logger, or ours: anything with pino's or console's `error`/`warn` shape (an object of fields, then a
 * message). Without one, each line is one JSON object on stderr, so log collectors can read it and nothing is lost.
 */
export interface WebhookLogger {
  error(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
}

/**
 * An error as log fields: its name, message and code, its stack, and the chain of causes that explains it (an
 * AggregateError's errors too: Node's failed connect to a name with two addresses has an empty message of its own).
 * Never `{}`: whatever was thrown, a plain object or a string included, keeps a message a person can read.
 */
export function errorFields(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return thrownFields(error);
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  const { code, status, hint } = error as { code?: unknown; status?: unknown; hint?: unknown };
  if (code !== undefined) fields.code = code;
  if (status !== undefined) fields.status = status;
  // What to change is for the operator reading the log as much as for the caller.
  if (hint !== undefined) fields.hint = hint;
  const inner = error instanceof AggregateError && Array.isArray(error.errors) ? error.errors.slice(0, 5) : [];
  if (inner.length > 0 && depth < 5) fields.errors = inner.map((each) => errorFields(each, depth + 1));
  if (error.message === '') fields.message = [code, ...inner.map((each) => (each instanceof Error ? each.message : String(each)))].filter((part) => part !== undefined && part !== '').join('; ') || error.name;
  if (error.stack !== undefined) fields.stack = error.stack;
  if (error.cause !== undefined && depth < 5) fields.cause = errorFields(error.cause, depth + 1);
  return fields;
}

/** Something thrown that is no Error: an object's own message, code and name when it has them, else its text. */
function thrownFields(thrown: unknown): Record<string, unknown> {
  const { message, code, name } = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as Record<string, unknown>;
  let text = typeof message === 'string' && message !== '' ? message : undefined;
  if (text === undefined) {
    try {
      text = typeof thrown === 'object' && thrown !== null ? JSON.stringify(thrown) ?? String(thrown) : String(thrown);
    } catch {
      text = Object.prototype.toString.call(thrown);
    }
  }
  const fields: Record<string, unknown> = { message: text };
  if (typeof name === 'string') fields.name = name;
  if (code !== undefined) fields.code = code;
  return fields;
}

/** JSON of a log record: an Error anywhere in its fields as errorFields, never the `{}` JSON.stringify makes of one. */
function withErrors(_key: string, value: unknown): unknown {
  return value instanceof Error ? errorFields(value) : value;
}

function line(level: 'error' | 'warn', fields: Record<string, unknown>, message: string | undefined): void {
  const record = { level, time: new Date().toISOString(), name: 'workflow-webhooks', msg: message, ...fields };
  let text: string;
  try {
    text = JSON.stringify(record, withErrors);
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
