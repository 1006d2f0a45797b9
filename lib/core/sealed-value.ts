/**
 * A sealed JSON value as a store keeps it: the key's id, the 96-bit nonce, the 128-bit tag and the ciphertext, base64.
 * Apart from sealing.ts, which needs Node's crypto, so that types built on it reach the console's page too.
 */
export interface SealedValue {
  kid: string;
  iv: string;
  tag: string;
  data: string;
}
