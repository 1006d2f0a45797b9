import { expect } from 'chai';
import { contentDisposition } from '../../../lib/webhooks/response/build-plan.js';

/** The Content-Disposition of a `firstEntryBinary` answer: the file name as every client can read it. */
describe('contentDisposition()', () => {
  it('sends a plain name as it is, quoting only where a token would not do', () => {
    expect(contentDisposition('report.pdf')).to.equal('inline; filename=report.pdf');
    expect(contentDisposition('Q3 report.pdf')).to.equal('inline; filename="Q3 report.pdf"');
  });

  it('quotes `;`, `"` and `\\` so that they stay part of the name', () => {
    expect(contentDisposition('a;b.txt')).to.equal('inline; filename="a;b.txt"');
    expect(contentDisposition('say "hi".txt')).to.equal('inline; filename="say \\"hi\\".txt"');
    expect(contentDisposition('a\\b.txt')).to.equal('inline; filename="a\\\\b.txt"');
  });

  it('sends a name beyond ASCII as UTF-8 filename*, beside an ASCII filename with `_` for each other character', () => {
    expect(contentDisposition('Bericht ü.pdf')).to.equal('inline; filename="Bericht _.pdf"; filename*=UTF-8\'\'Bericht%20%C3%BC.pdf');
    expect(contentDisposition('日本.txt')).to.equal('inline; filename=__.txt; filename*=UTF-8\'\'%E6%97%A5%E6%9C%AC.txt');
  });

  it('never lets a control character into the header', () => {
    const header = contentDisposition('a\r\nSet-Cookie: x=1.txt');
    expect(header).to.not.match(/[\r\n]/);
    expect(header).to.include("filename*=UTF-8''a%0D%0ASet-Cookie%3A%20x%3D1.txt");
  });
});
