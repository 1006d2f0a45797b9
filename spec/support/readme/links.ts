/**
 * The relative links of README and the guides in docs/: every markdown link, image and reference definition that
 * points into the repository (not http(s):, not mailto:), with the anchors GitHub gives the headings of the file it
 * names, so that a spec can say which of them lead nowhere.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

/**
 * GitHub's anchor of a heading: its text as rendered (markup, links' targets and HTML tags left out), lower case,
 * every character that is not a letter, a digit, a space, a hyphen or an underscore removed, spaces turned into
 * hyphens.
 */
export function headingSlug(heading: string): string {
  return heading
    .replace(/<[^>]*>/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The lines of `markdown` outside fenced code blocks, with their line numbers (from 1). */
function prose(markdown: string): { line: string; number: number }[] {
  let fenced = false;
  return markdown.split('\n').flatMap((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, number: index + 1 }];
  });
}

/**
 * The anchors a link may name in `markdown`: each ATX heading's slug (a repeated slug gets -1, -2, … in order) and
 * every `<a id>` or `<a name>` the text sets itself.
 */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { line } of prose(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      const slug = headingSlug(heading[1] as string);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const match of line.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1] as string);
  }
  return anchors;
}

export interface Link { line: number; target: string }

/**
 * The links of `markdown` that point into the repository: inline links and images (`[text](target)`,
 * `![alt](target "title")`), reference definitions (`[name]: target`) and HTML `src`/`href` attributes, outside code
 * blocks and code spans.
 */
export function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  for (const { line, number } of prose(markdown)) {
    const text = line.replace(/(`+)[\s\S]*?\1/g, '');
    const targets = [
      ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] as string),
      ...[...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)].map((match) => match[1] as string),
      ...[...text.matchAll(/<(?:img|a)\s[^>]*\b(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string),
    ];
    for (const target of targets) if (!/^(https?:|mailto:)/i.test(target)) links.push({ line: number, target });
  }
  return links;
}

/**
 * The relative links of `file` (a path from `root`) that lead nowhere, as `file:line: target (why)`: a file or folder
 * that does not exist, or a `#anchor` that no heading of the named markdown file (or of `file` itself) gives.
 */
export function brokenLinks(root: string, file: string): string[] {
  const markdown = readFileSync(join(root, file), 'utf8');
  return relativeLinks(markdown).flatMap(({ line, target }) => {
    const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
    const named = path === '' ? file : posix.normalize(posix.join(posix.dirname(file), decodeURI(path)));
    const where = `${file}:${line}: ${target}`;
    if (named.startsWith('..') || !existsSync(join(root, named))) return [`${where} (no file ${named})`];
    if (anchor === undefined || anchor === '') return [];
    if (statSync(join(root, named)).isDirectory() || !named.endsWith('.md')) return [`${where} (an anchor into ${named}, which has no headings)`];
    const anchors = anchorsOf(named === file ? markdown : readFileSync(join(root, named), 'utf8'));
    return anchors.has(decodeURIComponent(anchor)) ? [] : [`${where} (no heading of ${named} gives #${anchor})`];
  });
}
