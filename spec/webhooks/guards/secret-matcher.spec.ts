/**
 * Finding a call's secrets inside strings in one pass (secret-matcher.ts), through the one redaction function:
 * overlapping secrets are hidden whole, back-to-back ones stay apart, and a long secret of repeats is found in a long
 * run of the same character.
 */
import { expect } from 'chai';
import { callSecrets, redactSecrets } from '../../../lib/webhooks/guards/secrets.js';
import { secretMatcher } from '../../../lib/webhooks/guards/secret-matcher.js';

function secretsOfQuery(query: Record<string, string>): ReturnType<typeof callSecrets> {
  return callSecrets([{ json: { headers: {}, query, params: {} } }]);
}

describe('finding secrets inside strings', () => {
  it('hides every character of two secrets that overlap in a string, as one [redacted]', () => {
    const secrets = secretsOfQuery({ a_token: 'abcdefgh', b_token: 'fghijklm' });
    expect(redactSecrets({ note: 'x abcdefghijklm y' }, secrets)).to.deep.equal({ note: 'x [redacted] y' });
    expect(redactSecrets({ note: 'x fghijklm abcdefgh y' }, secrets)).to.deep.equal({ note: 'x [redacted] [redacted] y' });
  });

  it('hides a secret inside a longer one and a secret repeated back to back, each occurrence apart', () => {
    const secrets = secretsOfQuery({ a_token: 'cdefgh', b_token: 'abcdefghij' });
    expect(redactSecrets(['abcdefghij', 'cdefghcdefgh', 'zcdefghz'], secrets)).to.deep.equal(['[redacted]', '[redacted][redacted]', 'z[redacted]z']);
  });

  it('finds a long secret of repeats in a long run of the same character, and nothing else there', () => {
    const secret = `${'a'.repeat(3000)}b${'a'.repeat(3000)}`;
    const secrets = secretsOfQuery({ long_token: secret });
    const around = `${'a'.repeat(50_000)}${secret}${'a'.repeat(20_000)}`;
    expect(redactSecrets(around, secrets)).to.equal(`${'a'.repeat(50_000)}[redacted]${'a'.repeat(20_000)}`);
    expect(redactSecrets('a'.repeat(70_000), secrets)).to.equal('a'.repeat(70_000));
  });

  it('hides the same characters under the same marks in a short text as in a long one (searched another way)', () => {
    // A fixed pseudo-random sequence: texts and secrets over a 3-letter alphabet overlap often.
    let seed = 7;
    const random = (below: number): number => { seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; return seed % below; };
    const word = (length: number): string => Array.from({ length }, () => 'abc'[random(3)]).join('');
    const padding = '#'.repeat(70_000);
    for (let round = 0; round < 300; round += 1) {
      const secrets = Array.from({ length: 1 + random(3) }, () => word(2 + random(4)));
      const text = word(5 + random(30));
      const matcher = secretMatcher(secrets);
      const short = matcher.replaced(text, '*');
      expect(matcher.replaced(`${padding}${text}`, '*'), `${JSON.stringify(secrets)} in ${text}`).to.equal(`${padding}${short}`);
      // What stays is exactly the characters no occurrence covers.
      const hidden = new Array<boolean>(text.length).fill(false);
      for (const secret of secrets) {
        for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) hidden.fill(true, at, at + secret.length);
      }
      expect(short.replace(/\*/g, ''), `${JSON.stringify(secrets)} in ${text}`).to.equal([...text].filter((_, at) => !hidden[at]).join(''));
      expect(matcher.occursIn(text)).to.equal(hidden.includes(true));
      expect(matcher.occursIn(`${padding}${text}`)).to.equal(hidden.includes(true));
    }
  });

  it('tells whether any of many secrets occurs, and matches nothing without secrets', () => {
    const matcher = secretMatcher(Array.from({ length: 1000 }, (_, index) => `secret-${index}-x`));
    expect(matcher.occursIn('here is secret-999-x.')).to.equal(true);
    expect(matcher.occursIn('here is secret-1000-x.')).to.equal(false);
    expect(secretMatcher([]).replaced('secret-1-x', '[redacted]')).to.equal('secret-1-x');
  });
});
