import { expect } from 'chai';
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
