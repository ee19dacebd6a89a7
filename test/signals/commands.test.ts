import { describe, expect, it } from 'vitest';
import { commandFiles, isPython, programOf, type ScriptEffects, unwrap } from '../../src/signals/commands.js';
import type { PathContext } from '../../src/signals/paths.js';
import { lexShell } from '../../src/signals/shell.js';

describe('programOf and isPython', () => {
  it.each([
    ['cat', 'cat'],
    ['/usr/bin/python3', 'python3'],
    ['./node_modules/.bin/vitest', 'vitest'],
    ['dir/', ''],
    ['', ''],
    [undefined, ''],
  ])('programOf(%j) is %j', (word, program) => {
    expect(programOf(word)).toBe(program);
  });

  it.each([
    ['python', true],
    ['python3', true],
    ['python3.11', true],
    ['pypy', true],
    ['pypy3.9', true],
    ['ipython', false],
    ['pythonic', false],
    ['python-config', false],
    ['', false],
  ])('isPython(%j) is %s', (program, expected) => {
    expect(isPython(program)).toBe(expected);
  });
});

describe('unwrap', () => {
  const unwrapped = (text: string) => lexShell(text).map((command) => unwrap(command).words);

  it.each([
    ['FOO=1 BAR=2 pytest -x', ['pytest', '-x']],
    ['sudo cat /etc/hosts', ['cat', '/etc/hosts']],
    ['timeout 60 pytest', ['pytest']],
    ['timeout pytest', ['pytest']],
    ['env LANG=C sort a.txt', ['sort', 'a.txt']],
    ['nohup nice python run.py', ['python', 'run.py']],
    ['npx vitest run', ['vitest', 'run']],
    ['poetry run pytest', ['pytest']],
    ['uv run python -m pytest', ['python', '-m', 'pytest']],
    ['conda run -n dev pytest', ['pytest']],
    ['conda run pytest', ['pytest']],
    ['pnpm exec jest', ['jest']],
    ['yarn dlx prettier', ['prettier']],
    ['time make', ['make']],
    ['! grep -q x a.txt', ['grep', '-q', 'x', 'a.txt']],
  ])('%s runs %j', (text, words) => {
    expect(unwrapped(text)).toEqual([words]);
  });

  it.each([
    ['npm run test', ['npm', 'run', 'test']],
    ['poetry install', ['poetry', 'install']],
    ['git status', ['git', 'status']],
  ])('%s is no wrapper', (text, words) => {
    expect(unwrapped(text)).toEqual([words]);
  });

  it('drops the keywords of a compound command', () => {
    expect(unwrapped('if true; then ls src; fi')).toEqual([['true'], ['ls', 'src'], []]);
  });

  it('keeps the quoted flags in step with the words', () => {
    const [command] = lexShell('FOO=1 grep "a b" src');
    expect(command && unwrap(command)).toEqual({ words: ['grep', 'a b', 'src'], quoted: [false, true, false] });
  });

  it('does not mutate the command it reads', () => {
    const [command] = lexShell('sudo FOO=1 cat a.txt');
    const before = structuredClone(command);
    if (command) unwrap(command);
    expect(command).toEqual(before);
  });
});

describe('commandFiles: what a program does to its operands', () => {
  it.each([
    ['cat src/a.py', ['src/a.py'], [], ['src/a.py']],
    ['cat -n src/a.py README', ['src/a.py', 'README'], [], ['src/a.py', 'README']],
    ['head -n 20 a.py b.py', ['a.py', 'b.py'], [], ['a.py', 'b.py']],
    ['tail -f logs/app.log', ['logs/app.log'], [], ['logs/app.log']],
    ['grep -n needle src/a.py', ['src/a.py'], [], ['src/a.py']],
    ['grep -e one -e two src/a.py', ['src/a.py'], [], ['src/a.py']],
    ['grep -rn needle src/', [], [], ['src']],
    ['rg --include "*.py" needle lib', [], [], ['lib']],
    ["sed -n '1,5p' a.py", ['a.py'], [], ['a.py']],
    ["sed -e 's/a/b/' a.py", ['a.py'], [], ['a.py']],
    ["sed -i 's/a/b/' a.py b.py", [], ['a.py', 'b.py'], ['a.py', 'b.py']],
    ["awk '{print $1}' data.csv", ['data.csv'], [], ['data.csv']],
    ['awk -f prog.awk data.csv', ['data.csv'], [], ['data.csv']],
    ['echo hi | tee out.log', [], ['out.log'], ['out.log']],
    ['touch new.txt', [], ['new.txt'], ['new.txt']],
    ['mv old.py new.py', [], ['old.py', 'new.py'], ['old.py', 'new.py']],
    ['cp a.py b.py backup/', ['a.py', 'b.py'], ['backup'], ['a.py', 'b.py', 'backup']],
    ['git checkout src/a.py', [], ['src/a.py'], ['src/a.py']],
    ['git restore src/a.py', [], ['src/a.py'], ['src/a.py']],
    ['git apply fix.patch', ['fix.patch'], [], ['fix.patch']],
    ['git diff src/a.py', [], [], ['src/a.py']],
    ['git show HEAD:src/a.py', [], [], ['src/a.py']],
    ['ls src', [], [], ['src']],
    ['find src tests -name "*.py"', [], [], ['src', 'tests']],
    ['rm -rf build/', [], [], ['build']],
    ['mkdir -p out/dir', [], [], ['out/dir']],
    ['python script.py input.txt', [], [], ['script.py', 'input.txt']],
    ['node scripts/build.js', [], [], ['scripts/build.js']],
    ['npx prettier --write src/a.ts', [], [], ['src/a.ts']],
    ['curl -s https://example.com/a.py -o out.py', [], [], ['out.py']],
  ])('%s', (text, reads, edits, files) => {
    expect(commandFiles(text)).toEqual({ reads, edits, files });
  });
});

describe('commandFiles: redirections, here-documents and inner code', () => {
  it.each([
    ['echo "hello" > greeting.txt', [], ['greeting.txt']],
    ['printf x >> log.txt', [], ['log.txt']],
    ['sort < input.txt', ['input.txt'], []],
    ['cat a.py > b.py', ['a.py'], ['b.py']],
    ["python -c \"open('data/out.json', 'w').write('{}')\"", [], ['data/out.json']],
    ["python - <<'EOF'\nprint(open('notes.txt').read())\nEOF", ['notes.txt'], []],
    ["bash -c 'cat a.py > b.py'", ['a.py'], ['b.py']],
    ["patch -p1 <<'EOF'\n--- a/x.py\n+++ b/x.py\n@@\n-a\n+b\nEOF", [], ['x.py']],
    ["git apply <<'EOF'\n*** Begin Patch\n*** Update File: src/y.ts\n*** End Patch\nEOF", [], ['src/y.ts']],
    ['str_replace_editor view src/a.py', ['src/a.py'], []],
    ['str_replace_editor create new.py --file_text x', [], ['new.py']],
  ])('%s', (text, reads, edits) => {
    const found = commandFiles(text);
    expect([found.reads, found.edits]).toEqual([reads, edits]);
  });

  it('names a directory an editor program views, without reading it', () => {
    expect(commandFiles('str_replace_editor view src')).toEqual({ reads: [], edits: [], files: ['src'] });
  });

  it('does not take the words of a here-document body for files', () => {
    expect(commandFiles("cat <<'EOF' > t.py\nfrom pkg/mod.py import x\ncat other.py\nEOF")).toEqual({
      reads: [],
      edits: ['t.py'],
      files: ['t.py'],
    });
  });

  it.each([
    'echo x > /dev/null',
    'cat /dev/stdin',
    'echo "see src/a.py"',
    'export PATH=/usr/local/bin',
    'for f in *.py; do cat $f; done',
    'cat $HOME/a.py',
    'cat "my file.py"',
    'cat -',
    'cat /',
    'cat 123',
    'make -C build',
    'git status',
    'git log --oneline -5',
    '',
  ])('finds no file in %j', (text) => {
    expect(commandFiles(text)).toEqual({ reads: [], edits: [], files: [] });
  });
});

describe('commandFiles: where paths are anchored', () => {
  it.each<[string, PathContext, string[]]>([
    ['cd src && cat billing/tax.ts', {}, ['src/billing/tax.ts']],
    ['cd src; cd lib && cat a.py', {}, ['src/lib/a.py']],
    ['cd .. && cat a.py', {}, ['../a.py']],
    ['cd ~ && cat a.py', {}, ['a.py']],
    ['cd /elsewhere/tool && cat a.py', {}, ['a.py']],
    ['cat /repo/src/a.py', { repository: '/repo' }, ['src/a.py']],
    ['cd /repo/pkg && cat a.py', { repository: '/repo' }, ['pkg/a.py']],
    ['cd /repo && cat /repo/lib/util.py', { repository: '/repo' }, ['lib/util.py']],
    ['cat a.py', { cwd: 'pkg' }, ['pkg/a.py']],
    ['cat ./a.py ./a.py a.py', {}, ['a.py']],
    ['cat x/../y.py', {}, ['y.py']],
  ])('%s in %j reads %j', (text, context, reads) => {
    expect(commandFiles(text, undefined, context).reads).toEqual(reads);
  });

  it('does not mutate the context it starts from', () => {
    const context: PathContext = Object.freeze({ repository: '/repo', cwd: 'pkg' });
    expect(commandFiles('cd sub && cat a.py', undefined, context).reads).toEqual(['pkg/sub/a.py']);
    expect(context).toEqual({ repository: '/repo', cwd: 'pkg' });
  });
});

describe('commandFiles: Python scripts written, then run', () => {
  const WRITE_FIX = "cat <<'EOF' > fix.py\ncode = open('src/app.py').read()\nopen('src/app.py', 'w').write(code)\nEOF";

  it('keeps the effects of a script written by a here-document, by its path', () => {
    const scripts: ScriptEffects = new Map();
    expect(commandFiles(WRITE_FIX, scripts)).toEqual({ reads: [], edits: ['fix.py'], files: ['fix.py'] });
    expect([...scripts]).toEqual([['fix.py', { reads: ['src/app.py'], edits: ['src/app.py'] }]]);
  });

  it('counts what a script written earlier reads and edits when it runs, from the directory it runs in', () => {
    const scripts: ScriptEffects = new Map([['tools/fix.py', { reads: ['in.txt'], edits: ['out.txt'] }]]);
    expect(commandFiles('python tools/fix.py', scripts)).toEqual({
      reads: ['in.txt'],
      edits: ['out.txt'],
      files: ['tools/fix.py', 'in.txt', 'out.txt'],
    });
    expect(commandFiles('cd tools && python fix.py', scripts)).toEqual({
      reads: ['tools/in.txt'],
      edits: ['tools/out.txt'],
      files: ['tools/fix.py', 'tools/in.txt', 'tools/out.txt'],
    });
  });

  it('only names a script it knows nothing about, or a module run with -m', () => {
    const scripts: ScriptEffects = new Map([['fix.py', { reads: ['in.txt'], edits: ['out.txt'] }]]);
    expect(commandFiles('python fix.py')).toEqual({ reads: [], edits: [], files: ['fix.py'] });
    expect(commandFiles('python -m fix.py', scripts)).toEqual({ reads: [], edits: [], files: [] });
  });

  it('keeps no effect for a script that opens no literal file, or a file that is no Python script', () => {
    const scripts: ScriptEffects = new Map();
    commandFiles("cat <<'EOF' > hello.py\nprint('hello')\nEOF", scripts);
    commandFiles("cat <<'EOF' > notes.txt\nopen('a.txt', 'w')\nEOF", scripts);
    expect(scripts.size).toBe(0);
  });
});

describe('commandFiles: wrappers and long command lines', () => {
  it.each([
    'sudo cat a.py',
    'timeout 60 cat a.py',
    'FOO=1 cat a.py',
    'env X=1 cat a.py',
    'poetry run cat a.py',
    'conda run -n dev cat a.py',
  ])('%s reads a.py', (text) => {
    expect(commandFiles(text).reads).toEqual(['a.py']);
  });

  it('reads every file of a long chain once, in order', () => {
    const text = Array.from({ length: 500 }, (_, index) => `cat src/file${index % 250}.ts`).join('; ');
    const { reads, files } = commandFiles(text);
    expect(reads).toHaveLength(250);
    expect(reads[0]).toBe('src/file0.ts');
    expect(reads[249]).toBe('src/file249.ts');
    expect(files).toEqual(reads);
  });
});
