/**
 * A certificate authority and a server certificate for 127.0.0.1, made with openssl in a temp folder, for a
 * redis-server that speaks TLS in the specs. Valid for a day; the folder goes with `remove()`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findService, type Service } from './services.js';
import { makeTempDir } from './temp-dir.js';

/** openssl makes the certificates; a Debian machine without it gets it from its package, as redis-server. */
export const OPENSSL: Service = { binary: 'openssl', debianPackage: 'openssl' };

export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
  /** The CA's certificate, PEM: what a client trusts. */
  caPem: string;
  remove(): void;
}

export function makeTlsFiles(): TlsFiles {
  const dir = makeTempDir();
  const at = (name: string): string => join(dir.path, name);
  const binary = findService(OPENSSL);
  if (binary === undefined) throw new Error('openssl is missing: install the Debian package openssl');
  const openssl = (...args: string[]): void => { execFileSync(binary, args, { stdio: 'ignore' }); };
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', at('ca.key'), '-out', at('ca.crt'), '-days', '1', '-subj', '/CN=workflow-webhooks spec CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(at('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', at('server.csr'), '-CA', at('ca.crt'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at('server.crt'), '-days', '1', '-extfile', at('san.ext'));
  return { ca: at('ca.crt'), cert: at('server.crt'), key: at('server.key'), caPem: readFileSync(at('ca.crt'), 'utf8'), remove: () => dir.remove() };
}
