/**
 * A call as a shared store (Redis, PostgreSQL) keeps and announces it: JSON text, read back only when it has the
 * shape of a call (a foreign writer or a newer format is left out), and handed to every listener of a log, one
 * listener's failure never keeping it from the others.
 */
import type { CallRecordListener } from './contract.js';
import type { CallRecord } from '../protocol.js';

/** A stored or announced call, or undefined for anything else. */
export function parseCall(text: unknown): CallRecord | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const call = JSON.parse(text) as Partial<CallRecord> | null;
    return typeof call === 'object' && call !== null && typeof call.callId === 'string' && typeof call.at === 'number' ? call as CallRecord : undefined;
  } catch {
    return undefined;
  }
}

/** Tells each listener the call, if the text is one. */
export function tellListeners(listeners: ReadonlySet<CallRecordListener>, text: unknown): void {
  const call = parseCall(text);
  if (call === undefined) return;
  for (const listener of [...listeners]) {
    try {
      listener(call);
    } catch {
      // One listener failing must not keep the call from the others.
    }
  }
}
