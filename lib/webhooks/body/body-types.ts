/**
 * The shapes every part that reads or parses a call's body shares: the middleware's payload settings (built once),
 * what the matched node asks of its payload, the body's kind and type, and what a parse gives back. They live below
 * the payload and uploads folders, so an upload parser never reaches back into the payload entry for them.
 */
import type { BinaryData, VerifiedSignature } from '../../core/types.js';
import type { WebhookLogger } from '../../core/logger.js';
import type { PayloadLimits } from '../../core/option-limits.js';
import type { ContentType } from './content-type.js';
import type { BodyPace } from './request-watch.js';

export interface Payload {
  body: unknown;
  binary?: Record<string, BinaryData>;
  /** What was verified of a signed call (signatureAuth). */
  signature?: VerifiedSignature;
  /** Removes the call's temp files; safe to call more than once. */
  cleanup(): Promise<void>;
  /** How the body was parsed (a schema reads form, multipart and XML values as the types it says); absent: no body, or a host parser's. */
  kind?: Kind;
}

/** The middleware's settings, the same for every call (built once, at the factory). */
export interface PayloadSettings {
  limits: PayloadLimits;
  tempDir: string;
  /** Bytes of a call's files that may stay in memory before they go to disk. */
  memoryThreshold: number;
  /** How a body must keep coming: a stall is 408 BODY_TIMEOUT, a trickle below the minimum rate 408 BODY_TOO_SLOW. */
  pace: BodyPace;
  /** Where the payload stage reports what the caller cannot be told (e.g. a raw body a host parser consumed). */
  logger: WebhookLogger;
}

/** What the matched node says about its payload. */
export interface NodePayloadOptions {
  /** Keep the untouched bytes as binary `data` next to the parsed body. */
  rawBody: boolean;
  /** The whole body, of any type, becomes one binary entry and `body` stays `{}` (option of node version 1). */
  binaryData: boolean;
  binaryPropertyName: string | undefined;
}

export type Parsed = Omit<Payload, 'cleanup'>;
export type Kind = 'json' | 'form' | 'text' | 'xml' | 'multipart' | 'binary';

export interface BodyType {
  kind: Kind;
  contentType: ContentType;
  mimeType: string;
}
