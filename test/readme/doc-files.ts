/**
 * The documentation the readme tests read: README.md and every docs/*.md, with their fenced blocks found once, so
 * the snippet check and the link check agree on what is code and what is prose.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');

export interface DocFile {
  /** Path from the repository root, e.g. `docs/ai-sdk.md`. */
  path: string;
  text: string;
  lines: string[];
}

/** README.md, then docs/*.md in name order. */
export function docFiles(): DocFile[] {
  const docsDir = join(root, 'docs');
  const docs = existsSync(docsDir)
    ? readdirSync(docsDir)
        .filter((name) => name.endsWith('.md'))
        .sort()
        .map((name) => `docs/${name}`)
    : [];
  return ['README.md', ...docs].map(readDoc);
}

/** One Markdown file of the repository, by its path from the root. */
export function readDoc(path: string): DocFile {
  const text = readFileSync(join(root, path), 'utf8');
  return { path, text, lines: text.split('\n') };
}

export interface Fence {
  /** 0-based index of the opening fence line. */
  start: number;
  /** 0-based index of the closing fence line. */
  end: number;
  language: string;
}

const fenceAt = (line: string | undefined) => /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(line ?? '');

/** The fenced code blocks of a document; a block never closed throws, naming its line. */
export function fencesOf(doc: DocFile): Fence[] {
  const fences: Fence[] = [];
  for (let index = 0; index < doc.lines.length; index++) {
    const fence = fenceAt(doc.lines[index]);
    if (!fence) continue;
    const [, ticks = '```', language = ''] = fence;
    const end = doc.lines.findIndex((text, at) => at > index && text.trim() === ticks);
    if (end === -1) throw new Error(`${doc.path}:${index + 1}: code block never closed`);
    fences.push({ start: index, end, language });
    index = end;
  }
  return fences;
}

export interface Link {
  /** `docs/ai-sdk.md:12`. */
  where: string;
  target: string;
}

/** The document's lines that are prose: code blocks blanked, so line numbers stay. */
export function proseLines(doc: DocFile): string[] {
  const lines = [...doc.lines];
  for (const fence of fencesOf(doc)) for (let index = fence.start; index <= fence.end; index++) lines[index] = '';
  return lines;
}

/** Inline links and images, `[text](target)` and `![alt](target "title")`, outside code. */
export function linksOf(doc: DocFile): Link[] {
  return proseLines(doc).flatMap((text, index) => {
    const withoutCode = text.replace(/(`+)[^`]*?\1/g, '');
    return [...withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(([, target = '']) => ({
      where: `${doc.path}:${index + 1}`,
      target,
    }));
  });
}

/** GitHub's anchor of a heading: lower case, punctuation left out, spaces as hyphens; repeats get `-1`, `-2`. */
export function anchorsOf(markdown: string, path: string): Set<string> {
  const doc = { path, text: markdown, lines: markdown.split('\n') };
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const text of proseLines(doc)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}
