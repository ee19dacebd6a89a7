import { describe, expect, it } from 'vitest';
import { lexShell, patchPaths, pythonFileAccess, type SimpleCommand } from '../../src/signals/shell.js';

/** The words of each simple command, for cases where quoting, redirections and separators do not matter. */
const wordsOf = (text: string) => lexShell(text).map((command) => command.words);

describe('lexShell: splitting a command line', () => {
  it.each(['', '   ', '\n\n', '# only a comment'])('finds no command in %j', (text) => {
    expect(lexShell(text)).toEqual([]);
  });

  it('splits at every control operator and records the operator that ends each command', () => {
    const commands = lexShell('cd /repo && pytest -x || echo fail; ls | wc -l & sleep 1');
    expect(commands.map((command) => [command.words, command.sep])).toEqual([
      [['cd', '/repo'], '&&'],
      [['pytest', '-x'], '||'],
      [['echo', 'fail'], ';'],
      [['ls'], '|'],
      [['wc', '-l'], '&'],
      [['sleep', '1'], ''],
    ]);
  });

  it('ends a command at a newline', () => {
    expect(lexShell('ls\npwd').map((command) => [command.words, command.sep])).toEqual([
      [['ls'], '\n'],
      [['pwd'], ''],
    ]);
  });

  it('takes `|&` for a pipe', () => {
    expect(lexShell('make |& tee build.log').map((command) => [command.words, command.sep])).toEqual([
      [['make'], '|'],
      [['tee', 'build.log'], ''],
    ]);
  });

  it('opens a new command at a parenthesis that starts a subshell', () => {
    expect(wordsOf('(cd src; ls)')[0]).toEqual(['cd', 'src']);
  });

  it('keeps leading variable assignments as words', () => {
    expect(wordsOf('FOO=1 BAR=2 make')).toEqual([['FOO=1', 'BAR=2', 'make']]);
  });

  it('joins a line continued with a backslash', () => {
    expect(wordsOf('ls \\\n  -la src')).toEqual([['ls', '-la', 'src']]);
  });

  it('splits a very long command line into all of its commands', () => {
    const text = Array.from({ length: 2000 }, (_, index) => `cat file${index}.py`).join(' && ');
    const commands = lexShell(text);
    expect(commands).toHaveLength(2000);
    expect(commands[1999]).toEqual({
      words: ['cat', 'file1999.py'],
      quoted: [false, false],
      redirects: [],
      sep: '',
    });
  });
});

describe('lexShell: quotes, escapes and substitutions', () => {
  it('keeps quoted text as one word and marks it as quoted', () => {
    const [command] = lexShell(`echo 'a b' "c \\" d" e\\ f plain`);
    expect(command?.words).toEqual(['echo', 'a b', 'c " d', 'e f', 'plain']);
    expect(command?.quoted).toEqual([false, true, true, false, false]);
  });

  it('reads operators inside quotes as text', () => {
    expect(wordsOf(`grep "a && b; c | d" 'x > y' src`)).toEqual([['grep', 'a && b; c | d', 'x > y', 'src']]);
  });

  it('glues quoted and unquoted pieces of one word together', () => {
    const [command] = lexShell(`cat src/"my file".py`);
    expect(command?.words).toEqual(['cat', 'src/my file.py']);
    expect(command?.quoted).toEqual([false, true]);
  });

  it('takes the rest of the text for a quote that is never closed', () => {
    const [command] = lexShell(`echo 'unterminated && ls`);
    expect(command?.words).toEqual(['echo', 'unterminated && ls']);
    expect(command?.quoted).toEqual([false, true]);
  });

  it('keeps a command substitution, nested parentheses included, whole in one quoted word', () => {
    const [command] = lexShell('echo $(cat $(ls a) | head) done');
    expect(command?.words).toEqual(['echo', '$(cat $(ls a) | head)', 'done']);
    expect(command?.quoted).toEqual([false, true, false]);
  });

  it('keeps a backquoted command as one quoted word without its quotes', () => {
    const [command] = lexShell('echo `ls src`');
    expect(command?.words).toEqual(['echo', 'ls src']);
    expect(command?.quoted).toEqual([false, true]);
  });

  it('drops a comment to the end of its line, but not a # inside a word', () => {
    expect(wordsOf('echo hi # cat secret.txt\nls a#b')).toEqual([
      ['echo', 'hi'],
      ['ls', 'a#b'],
    ]);
  });

  it('keeps non-ASCII text as it is', () => {
    expect(wordsOf('echo "日本語 テキスト" ünïcode.py 🚀')).toEqual([['echo', '日本語 テキスト', 'ünïcode.py', '🚀']]);
  });
});

describe('lexShell: redirections', () => {
  const redirectsOf = (text: string) => lexShell(text).map((command) => [command.words, command.redirects]);

  it.each([
    ['cat a.txt > out.txt', ['cat', 'a.txt'], [{ op: '>', target: 'out.txt' }]],
    ['echo x >> log.txt', ['echo', 'x'], [{ op: '>>', target: 'log.txt' }]],
    ['sort < in.txt', ['sort'], [{ op: '<', target: 'in.txt' }]],
    ['make 2> err.log', ['make'], [{ op: '>', target: 'err.log' }]],
    ['make &> both.log', ['make'], [{ op: '>', target: 'both.log' }]],
    ['make >| forced.log', ['make'], [{ op: '>', target: 'forced.log' }]],
    ['grep x <<< "$VAR"', ['grep', 'x'], [{ op: '<<<', target: '$VAR' }]],
    ['cat>out.txt', ['cat'], [{ op: '>', target: 'out.txt' }]],
  ])('%s', (text, words, redirects) => {
    expect(redirectsOf(text)).toEqual([[words, redirects]]);
  });

  it('records no file for a descriptor duplication', () => {
    expect(redirectsOf('make > out.log 2>&1 1>&2')).toEqual([[['make'], [{ op: '>', target: 'out.log' }]]]);
  });

  it('reads digits right before a redirection as a descriptor, and digits apart from it as a word', () => {
    expect(redirectsOf('echo 12>f.txt')).toEqual([[['echo'], [{ op: '>', target: 'f.txt' }]]]);
    expect(redirectsOf('echo 12 >f.txt')).toEqual([[['echo', '12'], [{ op: '>', target: 'f.txt' }]]]);
  });

  it('keeps a command made only of a redirection', () => {
    expect(lexShell('> empty.txt')).toEqual([
      { words: [], quoted: [], redirects: [{ op: '>', target: 'empty.txt' }], sep: '' },
    ]);
  });

  it('forgets a redirection left without a target at the end of a command', () => {
    expect(redirectsOf('echo x >; ls')).toEqual([
      [['echo', 'x'], []],
      [['ls'], []],
    ]);
  });
});

describe('lexShell: here-documents', () => {
  it('gives the body to the command that announced it and lexes what follows the delimiter', () => {
    const commands = lexShell("cat <<'EOF' > fix.py\nprint('a && b')\nx = 1\nEOF\nls");
    expect(commands).toEqual<SimpleCommand[]>([
      {
        words: ['cat'],
        quoted: [false],
        redirects: [{ op: '>', target: 'fix.py' }],
        heredoc: "print('a && b')\nx = 1",
        sep: '\n',
      },
      { words: ['ls'], quoted: [false], redirects: [], sep: '' },
    ]);
  });

  it('matches the delimiter of `<<-` after its leading tabs', () => {
    const commands = lexShell('cat <<-END\n\tbody\n\tEND\necho after');
    expect(commands.map((command) => [command.words, command.heredoc])).toEqual([
      [['cat'], '\tbody'],
      [['echo', 'after'], undefined],
    ]);
  });

  it('reads the bodies of two here-documents of one line in order', () => {
    const commands = lexShell('cat <<A; cat <<B\none\nA\ntwo\nB');
    expect(commands.map((command) => command.heredoc)).toEqual(['one', 'two']);
  });

  it('takes the rest of the text for a body whose delimiter never comes', () => {
    expect(lexShell('cat <<EOF\nbody\nno delimiter').map((command) => command.heredoc)).toEqual(['body\nno delimiter']);
  });
});

describe('pythonFileAccess', () => {
  it.each([
    ["open('a.txt')", ['a.txt'], []],
    ["open('a.txt', 'r')", ['a.txt'], []],
    ["open(r'raw.txt', 'rb')", ['raw.txt'], []],
    ['open("b.txt", "w")', [], ['b.txt']],
    ["open('c.txt', mode='a')", [], ['c.txt']],
    ["open('d.txt', 'r+')", [], ['d.txt']],
    ["open('e.bin', 'xb')", [], ['e.bin']],
    ["Path('f.txt').write_text('x')", [], ['f.txt']],
    ['Path("g.bin").read_bytes()', ['g.bin'], []],
    ["with open( 'spaced.txt' , 'w' ) as f:", [], ['spaced.txt']],
  ])('%s', (code, reads, edits) => {
    expect(pythonFileAccess(code)).toEqual({ reads, edits });
  });

  it('lists reads and edits of a whole script, opens before Path calls', () => {
    const code = [
      "source = open('src/app.py').read()",
      "Path('out/report.md').write_text(source)",
      "open('src/app.py', 'w').write(source)",
    ].join('\n');
    expect(pythonFileAccess(code)).toEqual({ reads: ['src/app.py'], edits: ['src/app.py', 'out/report.md'] });
  });

  it.each([
    ['', 'empty code'],
    ['open(path)', 'a variable'],
    ["open(f'{name}.txt'.strip())", 'an f-string'],
    ["reopen('a.txt')", 'another function'],
    ["Path('a.txt').exists()", 'a Path call that neither reads nor writes'],
  ])('finds no literal file in %j (%s)', (code) => {
    expect(pythonFileAccess(code)).toEqual({ reads: [], edits: [] });
  });
});

describe('patchPaths', () => {
  it('reads the files of an apply_patch envelope, moves included', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@',
      '-x',
      '+y',
      '*** Add File: src/c.ts',
      '+new',
      '*** Delete File: src/d.ts',
      '*** End Patch',
    ].join('\n');
    expect(patchPaths(patch)).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts']);
  });

  it('reads the files of a git diff: the new name of `diff --git`, and the old and new headers', () => {
    const patch = 'diff --git a/old.py b/new.py\n--- a/old.py\n+++ b/new.py\n@@ -1 +1 @@\n-a\n+b';
    expect(patchPaths(patch)).toEqual(['new.py', 'old.py', 'new.py']);
  });

  it('reads headers without the a/ and b/ prefixes', () => {
    expect(patchPaths('--- lib/core.py.orig\n+++ lib/core.py')).toEqual(['lib/core.py.orig', 'lib/core.py']);
  });

  it('leaves /dev/null out of a file that is added', () => {
    expect(patchPaths('--- /dev/null\n+++ b/added.py\n@@ -0,0 +1 @@\n+x')).toEqual(['added.py']);
  });

  it.each(['', 'no patch here', '+ added line\n- removed line', '*** Begin Patch\n*** End Patch'])(
    'finds no file in %j',
    (patch) => {
      expect(patchPaths(patch)).toEqual([]);
    },
  );
});
