/**
 * Whether a statement that failed may have been committed all the same. A connection that ends while a statement is
 * on its way (the server stopped or restarted, the backend terminated, the network cut) leaves its outcome unknown:
 * the commit may have happened with its answer lost. Only such failures count: a statement that never left (no
 * connection could be made, the server was starting up, its values could not be serialised), and one the server
 * refused and rolled back (any other SQLSTATE), were not carried out.
 */

/** SQLSTATEs of a connection that ended (class 08, operator intervention 57P) but those sent before any statement. */
const ENDED_CLASSES = /^(08|57P)/;
const BEFORE_ANY_STATEMENT = new Set(['57P03', '08001', '08004']);
/** Socket failures that cut a connection with a statement on it. */
const CUT_MIDWAY = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
/** node-postgres' own words for a connection that ended with a statement on its way. */
const ENDED = /^Connection terminated( unexpectedly)?$/;

/** The code of the error or of its first cause that has one, and whether the server sent it (a SQLSTATE). */
function codeOf(error: unknown): { code: string; fromServer: boolean } | undefined {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const { code, severity } = cause as { code?: unknown; severity?: unknown };
    if (typeof code === 'string') return { code, fromServer: typeof severity === 'string' };
  }
  return undefined;
}

export function mayHaveCommitted(error: unknown): boolean {
  const found = codeOf(error);
  if (found?.fromServer === true) return ENDED_CLASSES.test(found.code) && !BEFORE_ANY_STATEMENT.has(found.code);
  if (found !== undefined) return CUT_MIDWAY.has(found.code);
  return error instanceof Error && ENDED.test(error.message);
}
