/** Text decoding shared by the buffered parsers: UTF-8 by default, the charsets TextDecoder knows, BOM stripped. */
import { WebhookError } from '../../core/errors.js';
import { TextDecoder } from 'node:util';

const decoders = new Map<string, TextDecoder>();

function decoderFor(charset: string): TextDecoder {
  let decoder = decoders.get(charset);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(charset, { ignoreBOM: false });
    } catch (error) {
      throw new WebhookError('BODY_UNSUPPORTED_CHARSET', `The charset "${charset}" of the request body is not supported.`, {
        hint: 'Send the body as UTF-8.',
        cause: error,
      });
    }
    // Only remember labels that exist, so junk charsets cannot grow the cache.
    decoders.set(charset, decoder);
  }
  return decoder;
}

export function decodeText(bytes: Buffer, charset: string | undefined): string {
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8') {
    // Buffer's own UTF-8 decoding is the fastest, and replaces bad bytes as TextDecoder does; only the BOM is ours.
    const text = bytes.toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  return decoderFor(charset).decode(bytes);
}
