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
  return new ShellLexer(text).commands();
}

/** A here-document announced on a line: its body is read after the line ends, for the command that announced it. */
interface PendingHeredoc {
  readonly delimiter: string;
  /** `<<-`: leading tabs of its lines are stripped before the delimiter is matched. */
  readonly strip: boolean;
  readonly command: SimpleCommand;
}

/** The lexer's state while it reads one text left to right: the position, the command and the word being read. */
class ShellLexer {
  private readonly out: SimpleCommand[] = [];
  private current = blank();
  private word = '';
  private inWord = false;
  private quoted = false;
  private redirect: string | undefined;
  /** After `<<` or `<<-`: the next word is a here-document's delimiter (true when its tabs are stripped). */
  private heredocNext: boolean | undefined;
  private heredocs: PendingHeredoc[] = [];
  private position = 0;

  constructor(private readonly text: string) {}

  commands(): SimpleCommand[] {
    while (this.position < this.text.length)
      this.step(this.text[this.position] as string, this.text[this.position + 1]);
    this.endCommand('');
    return this.out;
  }

  /** Reads what starts at the current position: `c`, followed by `next`. */
  private step(c: string, next: string | undefined): void {
    if (c === '\\') this.escape(next);
    else if (c === "'" || c === '`') this.singleQuoted(c);
    else if (c === '"') this.doubleQuoted();
    else if (c === '$' && next === '(') this.substitution();
    else if (c === ' ' || c === '\t' || c === '\r') {
      this.endWord();
      this.position++;
    } else if (c === '\n') {
      this.endCommand('\n');
      this.position++;
      this.readHeredocs();
    } else if (c === '#' && !this.inWord) this.comment();
    else if (!this.operator(c, next)) this.literal(c);
  }

  /** A control operator or a redirection at `c`; false when `c` is neither. */
  private operator(c: string, next: string | undefined): boolean {
    if ((c === '&' || c === '|') && next === c) {
      this.endCommand(c + c);
      this.position += 2;
    } else if (c === '|' || c === ';' || ((c === '(' || c === ')') && !this.inWord)) {
      this.endCommand(c === '|' ? '|' : ';');
      this.position += next === '&' && c === '|' ? 2 : 1;
    } else if (c === '&' && next === '>') {
      this.endWord();
      this.redirect = '>';
      this.position += this.text[this.position + 2] === '>' ? 3 : 2;
    } else if (c === '&') {
      this.endCommand('&');
      this.position++;
    } else if (c === '>' || c === '<') this.redirection(c, next);
    else return false;
    return true;
  }

  private literal(c: string): void {
    this.word += c;
    this.inWord = true;
    this.position++;
  }

  private escape(next: string | undefined): void {
    if (next !== '\n') {
      this.word += next ?? '';
      this.inWord = true;
    }
    this.position += 2;
  }

  /** `'...'` or a backquoted command: taken as it is, up to the closing quote. */
  private singleQuoted(quote: string): void {
    const end = this.text.indexOf(quote, this.position + 1);
    const stop = end < 0 ? this.text.length : end;
    this.word += this.text.slice(this.position + 1, stop);
    this.inWord = this.quoted = true;
    this.position = stop + 1;
  }

  /** `"..."`: a backslash escapes the character after it. */
  private doubleQuoted(): void {
    const { text } = this;
    let j = this.position + 1;
    while (j < text.length && text[j] !== '"') {
      if (text[j] === '\\' && j + 1 < text.length) j++;
      this.word += text[j];
      j++;
    }
    this.inWord = this.quoted = true;
    this.position = j + 1;
  }

  /** `$(...)`, nested parentheses included, kept whole in the word. */
  private substitution(): void {
    const { text } = this;
    let depth = 0;
    let j = this.position + 1;
    for (; j < text.length; j++) {
      if (text[j] === '(') depth++;
      else if (text[j] === ')' && --depth === 0) break;
    }
    this.word += text.slice(this.position, j + 1);
    this.inWord = this.quoted = true;
    this.position = j + 1;
  }

  private comment(): void {
    while (this.position < this.text.length && this.text[this.position] !== '\n') this.position++;
  }

  /** `>`, `>>`, `<`, `<<<`, a here-document (`<<`, `<<-`), a descriptor number before them, a duplication (`>&2`). */
  private redirection(c: string, next: string | undefined): void {
    const { text } = this;
    if (this.inWord && !this.quoted && /^\d+$/.test(this.word)) {
      this.word = '';
      this.inWord = false;
    } else this.endWord();
    if (c === '<' && text.startsWith('<<<', this.position)) {
      this.redirect = '<<<';
      this.position += 3;
    } else if (c === '<' && next === '<') {
      this.position += 2;
      this.heredocNext = text[this.position] === '-';
      if (this.heredocNext) this.position++;
    } else {
      let op: string = c;
      this.position++;
      if (c === '>' && text[this.position] === '>') {
        op = '>>';
        this.position++;
      } else if (text[this.position] === '|') this.position++;
      if (text[this.position] === '&') {
        this.position++;
        while (this.position < text.length && /[\d-]/.test(text[this.position] as string)) this.position++;
      } else this.redirect = op;
    }
  }

  private endWord(): void {
    if (!this.inWord) return;
    if (this.heredocNext !== undefined) {
      this.heredocs.push({ delimiter: this.word, strip: this.heredocNext, command: this.current });
      this.heredocNext = undefined;
    } else if (this.redirect) {
      this.current.redirects.push({ op: this.redirect, target: this.word });
      this.redirect = undefined;
    } else {
      this.current.words.push(this.word);
      this.current.quoted.push(this.quoted);
    }
    this.word = '';
    this.inWord = false;
    this.quoted = false;
  }

  private endCommand(sep: string): void {
    this.endWord();
    this.redirect = undefined;
    const { current } = this;
    if (current.words.length > 0 || current.redirects.length > 0 || this.heredocs.some((h) => h.command === current)) {
      current.sep = sep;
      this.out.push(current);
    }
    this.current = blank();
  }

  /** The bodies of the here-documents announced on the line just ended, each up to its delimiter line. */
  private readHeredocs(): void {
    const { text } = this;
    for (const heredoc of this.heredocs) {
      const lines: string[] = [];
      while (this.position < text.length) {
        let end = text.indexOf('\n', this.position);
        if (end < 0) end = text.length;
        const line = text.slice(this.position, end);
        this.position = end + 1;
        if ((heredoc.strip ? line.replace(/^\t+/, '') : line).trim() === heredoc.delimiter) break;
        lines.push(line);
      }
      heredoc.command.heredoc = lines.join('\n');
    }
    this.heredocs = [];
  }
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
