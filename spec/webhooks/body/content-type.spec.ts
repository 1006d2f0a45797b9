import { expect } from 'chai';
import { isJsonType, parseContentType } from '../../../lib/webhooks/body/content-type.js';

describe('parseContentType()', () => {
  it('lower-cases the media type and reads quoted parameters', () => {
    expect(parseContentType('Application/JSON; Charset="UTF-8"; boundary=AbC')).to.deep.include({
      mediaType: 'application/json',
      charset: 'utf-8',
    });
    expect(parseContentType('multipart/form-data; boundary="a\\"b"').parameters.boundary).to.equal('a"b');
  });

  it('gives an empty media type for a missing or unreadable header', () => {
    expect(parseContentType(undefined).mediaType).to.equal('');
    expect(parseContentType('not a type').mediaType).to.equal('');
  });

  it('keeps the first of repeated parameters and ignores prototype names', () => {
    const parsed = parseContentType('text/plain; charset=a; charset=b; __proto__=x');
    expect(parsed.charset).to.equal('a');
    expect(Object.getPrototypeOf(parsed.parameters)).to.equal(null);
  });

  it('knows every JSON media type', () => {
    for (const type of ['application/json', 'application/ld+json', 'application/vnd.api+json', 'text/json']) expect(isJsonType(type), type).to.equal(true);
    for (const type of ['application/jsonl', 'text/plain', '']) expect(isJsonType(type), type).to.equal(false);
  });
});
