import { expect } from 'chai';
import { describeBinary, fileExtensionOf, fileTypeOf } from '../../../lib/webhooks/uploads/binary-meta.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the metadata of binary data', () => {
  it('gives the size in bytes and as the platform displays it (1 kB = 1000 bytes)', () => {
    const sizes = [0, 48, 999, 1000, 5321, 1_200_000, 3_500_000_000].map((bytes) => {
      const binary = describeBinary({ mimeType: 'application/pdf', fileName: 'a.pdf', bytes });
      return [binary.bytes, binary.fileSize];
    });
    expect(sizes).to.deep.equal([[0, '0 B'], [48, '48 B'], [999, '999 B'], [1000, '1 kB'], [5321, '5.32 kB'], [1_200_000, '1.2 MB'], [3_500_000_000, '3.5 GB']]);
  });

  it('derives the file type from the media type as the platform does', () => {
    const types = ['application/json', 'text/html', 'image/png', 'audio/mpeg', 'video/mp4', 'text/csv', 'application/javascript',
      'application/pdf', 'application/zip', 'application/octet-stream'].map(fileTypeOf);
    expect(types).to.deep.equal(['json', 'html', 'image', 'audio', 'video', 'text', 'text', 'pdf', undefined, undefined]);
  });

  it('takes the extension from the file name, else from the media type', () => {
    expect(fileExtensionOf('report.final.PDF', 'application/octet-stream')).to.equal('PDF');
    expect(fileExtensionOf('README', 'text/plain')).to.equal('txt');
    expect(fileExtensionOf('upload', 'application/octet-stream')).to.equal('bin');
    expect(fileExtensionOf('upload', 'application/x-made-up')).to.equal(undefined);
  });

  it('names a body that came without a file name with a new UUID, as the platform does', () => {
    const first = describeBinary({ mimeType: 'image/png', fileName: undefined, bytes: 3, data: Buffer.from([1, 2, 3]) });
    const second = describeBinary({ mimeType: 'image/png', fileName: undefined, bytes: 3 });
    expect(first.fileName).to.match(UUID);
    expect(first.fileName).to.not.equal(second.fileName);
    expect(first).to.deep.include({ mimeType: 'image/png', fileExtension: 'png', fileType: 'image', bytes: 3, fileSize: '3 B' });
    expect(first.data).to.deep.equal(Buffer.from([1, 2, 3]));
  });

  it('leaves out the fields it cannot know instead of guessing', () => {
    const binary = describeBinary({ mimeType: 'application/x-made-up', fileName: 'blob', bytes: 1, path: '/tmp/x' });
    expect(binary).to.deep.equal({ mimeType: 'application/x-made-up', fileName: 'blob', bytes: 1, fileSize: '1 B', path: '/tmp/x' });
  });
});
