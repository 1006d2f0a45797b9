import { expect } from 'chai';
import fc from 'fast-check';
import { WebhookError } from '../../../lib/core/errors.js';
import { parseFormBody } from '../../../lib/webhooks/payload/form.js';

const tooMany = (): WebhookError => new WebhookError('LIMIT_FIELD_COUNT', 'too many');
const parse = (text: string, maxFields = 1000): unknown => parseFormBody(Buffer.from(text), undefined, maxFields, tooMany);

describe('form bodies (parseFormBody)', () => {
  it('splits pairs at & and a name from its value at the first =', () => {
    expect(parse('a=1&b=x=y&c')).to.deep.equal({ a: '1', b: 'x=y', c: '' });
  });

  it('gives a name without = an empty value, wherever the next = is', () => {
    expect(parse('a&b&c=3&d')).to.deep.equal({ a: '', b: '', c: '3', d: '' });
    expect(parse('=v&&x=')).to.deep.equal({ '': 'v', x: '' });
  });

  it('decodes + and %XX in names and values, and keeps invalid escapes as written', () => {
    expect(parse('full+name=Ada+Lovelace&e%6Dail=ada%40example.com&bad=100%&mixed=%41%zz%42')).to.deep.equal({
      'full name': 'Ada Lovelace', email: 'ada@example.com', bad: '100%', mixed: 'A%zzB',
    });
  });

  it('makes repeated names arrays in the order they came', () => {
    expect(parse('t=a&t=b&t=c')).to.deep.equal({ t: ['a', 'b', 'c'] });
  });

  it('counts the pairs it keeps against the field limit, empty ones aside', () => {
    expect(parse('a=1&&b=2&', 2)).to.deep.equal({ a: '1', b: '2' });
    expect(() => parse('a=1&b=2&c=3', 2)).to.throw(WebhookError).with.property('code', 'LIMIT_FIELD_COUNT');
  });
});

/**
 * The plain reading the one-pass parser must equal: split at `&`, then at the first `=`, `+` as a space, then
 * decodeURIComponent, or, where that fails, each valid run of `%XX` decoded on its own and the rest kept as written.
 */
function plainReading(text: string): Record<string, string | string[]> {
  const decode = (part: string): string => {
    const spaced = part.replace(/\+/g, ' ');
    try {
      return decodeURIComponent(spaced);
    } catch {
      return spaced.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
        try { return decodeURIComponent(run); } catch { return run; }
      });
    }
  };
  const fields: Record<string, string | string[]> = {};
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decode(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : decode(pair.slice(equals + 1));
    const had = fields[name];
    fields[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return fields;
}

describe('form bodies against the plain reading', () => {
  it('parses any body of names, values, +, = and valid, broken or multi-byte %XX exactly as the plain reading does', () => {
    const piece = fc.constantFrom('a', 'B', '=', '&', '+', '%', '%4', '%41', '%4g', '%zz', '%e2%82%ac', '%E2%82', '%FF', '%2B', '%26', '%3D', ' ', 'é', '0');
    fc.assert(fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
      const text = pieces.join('');
      expect(parse(text), text).to.deep.equal(plainReading(text));
    }), { numRuns: 20_000 });
  });
});
