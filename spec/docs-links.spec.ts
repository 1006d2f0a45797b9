import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docFiles, readDoc, ROOT } from './support/readme/blocks.js';
import { anchorsOf, brokenLinks, headingSlug, relativeLinks } from './support/readme/links.js';

/**
 * README is a front page that links one guide per topic in docs/, and the guides link each other: a guide renamed or
 * a heading reworded must not leave a link that leads nowhere, on GitHub or in an editor.
 */
describe('the links of README and docs/', () => {
  it('lead to files that exist and, with #anchor, to a heading of that file', () => {
    const files = docFiles();
    expect(files).to.include('README.md');
    expect(files.length, 'README and its guides').to.be.greaterThan(15);
    expect(files.flatMap((file) => brokenLinks(ROOT, file))).to.deep.equal([]);
  });

  it('link every guide in docs/ from README', () => {
    const linked = new Set(relativeLinks(readDoc('README.md')).map(({ target }) => target.split('#')[0]));
    expect(docFiles().filter((file) => file !== 'README.md' && !linked.has(file))).to.deep.equal([]);
  });

  describe('the check itself', () => {
    let root = '';
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'ww-links-'));
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs/a.md'), '# Queue mode (`workflow-webhooks/queue`)\n\n## Limits\n\n## Limits\n\n<a id="kept"></a>**Kept.**\n');
      writeFileSync(join(root, 'docs/shot.png'), '');
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('gives headings GitHub\'s anchors: lower case, punctuation gone, spaces as hyphens, repeats numbered', () => {
      expect(headingSlug('Queue mode (`workflow-webhooks/queue`)')).to.equal('queue-mode-workflow-webhooksqueue');
      expect(headingSlug('Long work: answer at once, poll for the result')).to.equal('long-work-answer-at-once-poll-for-the-result');
      expect(headingSlug('`createWebhookMiddleware(registry, executor, options?)`')).to.equal('createwebhookmiddlewareregistry-executor-options');
      expect(headingSlug('Hosts: Express, Connect, node:http, NestJS and Fastify')).to.equal('hosts-express-connect-nodehttp-nestjs-and-fastify');
      expect([...anchorsOf('# A\n\n```sh\n# not a heading\n```\n\n## A\n\n## A\n')]).to.deep.equal(['a', 'a-1', 'a-2']);
    });

    it('finds no fault in links that resolve', () => {
      writeFileSync(join(root, 'README.md'), [
        '[queue](docs/a.md#queue-mode-workflow-webhooksqueue), [again](docs/a.md#limits-1), [kept](docs/a.md#kept)',
        '![shot](docs/shot.png "a title") [site](https://example.com/x.md) [mail](mailto:a@example.com)',
        '`[not a link](nowhere.md)`',
        '```md\n[not a link either](nowhere.md)\n```',
      ].join('\n'));
      expect(brokenLinks(root, 'README.md')).to.deep.equal([]);
    });

    it('reports a missing file, a missing image, a missing anchor and a link out of the repository', () => {
      writeFileSync(join(root, 'README.md'), [
        '[gone](docs/b.md)',
        '![gone](docs/gone.png)',
        '[anchor](docs/a.md#limits-2) [here](#nothing)',
        '[outside](../elsewhere.md)',
        '[ref]: docs/c.md',
      ].join('\n'));
      expect(brokenLinks(root, 'README.md')).to.deep.equal([
        'README.md:1: docs/b.md (no file docs/b.md)',
        'README.md:2: docs/gone.png (no file docs/gone.png)',
        'README.md:3: docs/a.md#limits-2 (no heading of docs/a.md gives #limits-2)',
        'README.md:3: #nothing (no heading of README.md gives #nothing)',
        'README.md:4: ../elsewhere.md (no file ../elsewhere.md)',
        'README.md:5: docs/c.md (no file docs/c.md)',
      ]);
    });

    it('resolves a guide\'s links from the guide\'s own folder', () => {
      writeFileSync(join(root, 'README.md'), '# Front\n');
      writeFileSync(join(root, 'docs/b.md'), '[front](../README.md#front) [a](a.md) [wrong](docs/a.md)\n');
      expect(brokenLinks(root, 'docs/b.md')).to.deep.equal(['docs/b.md:1: docs/a.md (no file docs/docs/a.md)']);
    });
  });
});
