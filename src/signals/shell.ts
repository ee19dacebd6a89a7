/**
 * A small shell lexer: splits a command line into simple commands (words, redirections, here-document bodies),
 * enough to tell which words are files a command reads or writes. It never runs anything.
 */

/** One simple command of a command line. */
export interface SimpleCommand {
  readonly words: string[];
  /** Per word: true when any part of it was quoted or substituted (so it is content, not a bare name). */
  readonly quoted: boolean[];
  readonly redirects: { op: string; target: string }[];
  /** Body of a here-document fed to this command, if any. */
  heredoc?: string;
  /** Operator that ends the command: '&&', '||', ';', '|', '&', a newline or '' at the end. */
  sep: string;
}

const blank = (): SimpleCommand => ({ words: [], quoted: [], redirects: [], sep: '' });

/** Splits shell text into simple commands; quotes, escapes, comments, `$(...)` and here-documents are honoured. */
export function lexShell(text: string): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  let current = blank();
  let word = '';
  let inWord = false;
  let quoted = false;
  let redirect: string | undefined;
  let heredocNext: boolean | undefined;
  let heredocs: { delimiter: string; strip: boolean; command: SimpleCommand }[] = [];
  let i = 0;
  const n = text.length;

  const endWord = () => {
    if (!inWord) return;
    if (heredocNext !== undefined) {
      heredocs.push({ delimiter: word, strip: heredocNext, command: current });
      heredocNext = undefined;
    } else if (redirect) {
      current.redirects.push({ op: redirect, target: word });
      redirect = undefined;
    } else {
      current.words.push(word);
      current.quoted.push(quoted);
    }
    word = '';
    inWord = false;
    quoted = false;
  };
  const endCommand = (sep: string) => {
    endWord();
    redirect = undefined;
    if (current.words.length > 0 || current.redirects.length > 0 || heredocs.some((h) => h.command === current)) {
      current.sep = sep;
      out.push(current);
    }
    current = blank();
  };
  const readHeredocs = () => {
    for (const heredoc of heredocs) {
      const lines: string[] = [];
      while (i < n) {
        let end = text.indexOf('\n', i);
        if (end < 0) end = n;
        const line = text.slice(i, end);
        i = end + 1;
        if ((heredoc.strip ? line.replace(/^\t+/, '') : line).trim() === heredoc.delimiter) break;
        lines.push(line);
      }
      heredoc.command.heredoc = lines.join('\n');
    }
    heredocs = [];
  };

  while (i < n) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '\\') {
      if (next === '\n') i += 2;
      else {
        word += next ?? '';
        inWord = true;
        i += 2;
      }
    } else if (c === "'" || c === '`') {
      const end = text.indexOf(c, i + 1);
      const stop = end < 0 ? n : end;
      word += text.slice(i + 1, stop);
      inWord = quoted = true;
      i = stop + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < n) j++;
        word += text[j];
        j++;
      }
      inWord = quoted = true;
      i = j + 1;
    } else if (c === '$' && next === '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < n; j++) {
        if (text[j] === '(') depth++;
        else if (text[j] === ')' && --depth === 0) break;
      }
      word += text.slice(i, j + 1);
      inWord = quoted = true;
      i = j + 1;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      endWord();
      i++;
    } else if (c === '\n') {
      endCommand('\n');
      i++;
      readHeredocs();
    } else if (c === '#' && !inWord) {
      while (i < n && text[i] !== '\n') i++;
    } else if ((c === '&' || c === '|') && next === c) {
      endCommand(c + c);
      i += 2;
    } else if (c === '|' || c === ';' || ((c === '(' || c === ')') && !inWord)) {
      endCommand(c === '|' ? '|' : ';');
      i += next === '&' && c === '|' ? 2 : 1;
    } else if (c === '&' && next === '>') {
      endWord();
      redirect = '>';
      i += text[i + 2] === '>' ? 3 : 2;
    } else if (c === '&') {
      endCommand('&');
      i++;
    } else if (c === '>' || c === '<') {
      if (inWord && !quoted && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
      } else endWord();
      if (c === '<' && text.startsWith('<<<', i)) {
        redirect = '<<<';
        i += 3;
      } else if (c === '<' && next === '<') {
        i += 2;
        heredocNext = text[i] === '-';
        if (heredocNext) i++;
      } else {
        let op: string = c;
        i++;
        if (c === '>' && text[i] === '>') {
          op = '>>';
          i++;
        } else if (text[i] === '|') i++;
        if (text[i] === '&') {
          i++;
          while (i < n && /[\d-]/.test(text[i] as string)) i++;
        } else redirect = op;
      }
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  endCommand('');
  return out;
}

/** Literal file paths opened by Python code: `open('x')` reads, `open('x', 'w')` and `.write_text` write. */
export function pythonFileAccess(code: string): { reads: string[]; edits: string[] } {
  const reads: string[] = [];
  const edits: string[] = [];
  for (const match of code.matchAll(
    /\bopen\(\s*r?(['"])([^'"\n]+)\1\s*(?:,\s*(?:mode\s*=\s*)?r?(['"])([^'"\n]*)\3)?/g,
  )) {
    const path = match[2] as string;
    if (/[wax+]/.test(match[4] ?? '')) edits.push(path);
    else reads.push(path);
  }
  for (const match of code.matchAll(/\bPath\(\s*r?(['"])([^'"\n]+)\1\s*\)\.(write|read)_(?:text|bytes)\(/g)) {
    (match[3] === 'write' ? edits : reads).push(match[2] as string);
  }
  return { reads, edits };
}

/** File paths named by a unified diff or an apply_patch envelope (`+++ b/x`, `*** Update File: x`). */
export function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const line of patch.split('\n')) {
    const envelope = /^\*\*\* (?:Update|Add|Delete) File:\s*(\S+)/.exec(line);
    const moved = /^\*\*\* Move to:\s*(\S+)/.exec(line);
    const unified = /^(?:\+\+\+|---) (?:[ab]\/)?(\S+)/.exec(line);
    const git = /^diff --git a\/(\S+) b\/(\S+)/.exec(line);
    const found = envelope?.[1] ?? moved?.[1] ?? git?.[2] ?? unified?.[1];
    if (found && found !== '/dev/null') paths.push(found);
  }
  return paths;
}
