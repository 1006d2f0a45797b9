import { expect } from 'chai';
import { decodeRequestPath, isDynamicPath, normalizeWebhookPath, pathShape, segmentsOf } from '../../../lib/webhooks/registry/paths.js';

describe('paths', () => {
  it('normalises registered paths: white space, outer slashes, repeated slashes', () => {
    expect(normalizeWebhookPath('  /a//b/c/ ')).to.equal('a/b/c');
    expect(normalizeWebhookPath('///')).to.equal('');
    expect(normalizeWebhookPath('Case/Kept')).to.equal('Case/Kept');
  });

  it('calls a path dynamic when a segment starts with a colon', () => {
    expect(isDynamicPath(':id')).to.equal(true);
    expect(isDynamicPath('a/:id/b')).to.equal(true);
    expect(isDynamicPath('a:b/c')).to.equal(false);
  });

  it('erases parameter names in the shape of a path', () => {
    expect(pathShape('u/:id/x/:y')).to.equal('u/:/x/:');
  });

  it('decodes request paths and drops trailing slashes', () => {
    expect(decodeRequestPath('a%20b/c//')).to.deep.equal({ decoded: 'a b/c', segments: ['a b', 'c'] });
    const plain = decodeRequestPath('plain/path/');
    expect(plain.decoded).to.equal('plain/path');
    expect(segmentsOf(plain)).to.deep.equal(['plain', 'path']);
  });

  it('refuses bad percent-encoding, encoded slashes and NUL bytes', () => {
    for (const raw of ['%E0%A4%A', 'a%2fb', 'x%00', 'x\0']) {
      expect(() => decodeRequestPath(raw), raw).to.throw().with.property('code', 'REQUEST_INVALID_PATH');
    }
  });
});
