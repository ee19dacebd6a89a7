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
  return ['README.md', ...docs].map((path) => {
    const text = readFileSync(join(root, path), 'utf8');
    return { path, text, lines: text.split('\n') };
  });
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
