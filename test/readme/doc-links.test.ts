/**
 * Every relative link of README.md and docs/*.md points to a file or folder of this repository, and a `#fragment`
 * to a heading of the file it names (GitHub's anchors). Links inside code blocks and code spans are not links; web
 * addresses are not checked (no network in tests).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, type DocFile, docFiles, linksOf, root } from './doc-files.js';

/** What is wrong with a link, or undefined when it leads somewhere. */
function problemOf(doc: DocFile, target: string): string | undefined {
  if (/^[a-z][a-z\d+.-]*:/i.test(target)) return undefined; // https:, mailto:
  const [path = '', fragment] = target.split('#');
  const file = path === '' ? join(root, doc.path) : normalize(join(root, dirname(doc.path), decodeURI(path)));
  const shown = relative(root, file);
  if (shown.startsWith('..')) return `${target} leaves the repository`;
  if (!existsSync(file)) return `${target}: no file ${shown}`;
  if (fragment === undefined || !file.endsWith('.md')) return undefined;
  if (statSync(file).isDirectory()) return `${target}: ${shown} is a folder`;
  const anchors = anchorsOf(readFileSync(file, 'utf8'), shown);
  return anchors.has(fragment) ? undefined : `${target}: no heading #${fragment} in ${shown}`;
}

const docs = docFiles();
const links = docs.flatMap((doc) => linksOf(doc).map((link) => ({ doc, ...link })));

describe('README.md and docs/*.md links', () => {
  it('finds the links of every document', () => {
    expect(docs.length).toBeGreaterThan(1);
    expect(links.length).toBeGreaterThan(0);
  });

  it('every relative link leads to a file of the repository, and every #fragment to a heading', () => {
    const problems = links.flatMap(({ doc, where, target }) => {
      const problem = problemOf(doc, target);
      return problem === undefined ? [] : [`${where}: ${problem}`];
    });
    expect(problems).toEqual([]);
  });

  it('reads GitHub anchors as GitHub makes them', () => {
    const anchors = anchorsOf('# A `tool`: B & C\n## Stores\n## Stores\n```\n# not a heading\n```\n', 'x.md');
    expect([...anchors]).toEqual(['a-tool-b--c', 'stores', 'stores-1']);
  });
});
