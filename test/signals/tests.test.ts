import { describe, expect, it } from 'vitest';
import type { TestRun } from '../../src/signals/step-signals.js';
import { detectTestRun, exitCode, findTestCommand, testOutcome } from '../../src/signals/tests.js';

describe('findTestCommand: runners and their targets', () => {
  it.each([
    ['pytest', 'pytest', '*'],
    ['pytest -k foo tests/a.py', 'pytest', 'tests/a.py'],
    ['pytest -x --tb short tests/a.py tests/b.py', 'pytest', 'tests/a.py tests/b.py'],
    ['py.test tests', 'pytest', 'tests'],
    ['python -m pytest -q', 'pytest', '*'],
    ['python3 -W ignore -m pytest a.py', 'pytest', 'a.py'],
    ['pytest ./tests/../tests/a.py', 'pytest', 'tests/a.py'],
    ['python -m unittest tests.test_x', 'unittest', 'tests.test_x'],
    ['python -m django test app', 'unittest', 'app'],
    ['python manage.py test app.tests', 'unittest', 'app.tests'],
    ['python runtests.py queries', 'unittest', 'queries'],
    ['./tests/runtests.py aggregation', 'unittest', 'aggregation'],
    ['python -m tox', 'tox', '*'],
    ['tox -e py39', 'tox', '*'],
    ['nox', 'nox', '*'],
    ['python reproduce.py', 'script', 'reproduce.py'],
    ['python repro_bug.py', 'script', 'repro_bug.py'],
    ['python verify_fix.py', 'script', 'verify_fix.py'],
    ['python3 test.py', 'script', 'test.py'],
    ['python foo_test.py', 'script', 'foo_test.py'],
    ['npm test', 'js', '*'],
    ['npm t', 'js', '*'],
    ['npm run test:unit', 'js', '*'],
    ['npm test -- --watch=false a.test.ts', 'js', 'a.test.ts'],
    ['bun test', 'js', '*'],
    ['yarn jest src/a.test.ts', 'js', 'src/a.test.ts'],
    ['pnpm run vitest run x.test.ts', 'js', 'x.test.ts'],
    ['vitest run src/a.test.ts', 'js', 'src/a.test.ts'],
    ['jest --watch', 'js', '*'],
    ['mocha test/x.spec.js', 'js', 'test/x.spec.js'],
    ['ava', 'js', '*'],
    ['go test ./...', 'go', './...'],
    ['go test -run TestX ./pkg', 'go', 'pkg'],
    ['cargo test parse', 'cargo', 'parse'],
    ['cargo nextest run foo', 'cargo', 'foo'],
    ['mvn test', 'jvm', '*'],
    ['./gradlew check', 'jvm', '*'],
    ['bundle exec rspec spec/a_spec.rb', 'rspec', 'spec/a_spec.rb'],
    ['rake test', 'rspec', '*'],
    ['vendor/bin/phpunit tests/', 'phpunit', 'tests'],
    ['dotnet test proj', 'dotnet', 'proj'],
    ['make test', 'make', '*'],
    ['deno test x.ts', 'deno', 'x.ts'],
    ['swift test', 'swift', '*'],
    ['mix test test/a.exs', 'mix', 'test/a.exs'],
  ])('%s → %s on %s', (commandLine, runner, target) => {
    expect(findTestCommand(commandLine)).toMatchObject({ runner, target });
  });

  it.each([
    ['cd /repo && pytest tests/a.py', 'pytest tests/a.py'],
    ['timeout 300 pytest x.py', 'pytest x.py'],
    ['FOO=1 npx vitest run', 'vitest run'],
    ['ls tests && pytest -x', 'pytest -x'],
  ])('reports the runner invocation of %s without what surrounds it', (commandLine, command) => {
    expect(findTestCommand(commandLine)?.command).toBe(command);
  });

  it('takes the first test command of a command line', () => {
    expect(findTestCommand('pytest a.py && npm test')).toEqual({
      runner: 'pytest',
      command: 'pytest a.py',
      target: 'a.py',
    });
  });

  it.each([
    ['', 'nothing'],
    ['python', 'an interpreter'],
    ['python -c "import pytest"', 'inline code'],
    ['python -m pip install pytest', 'another module'],
    ['python main.py', 'an ordinary script'],
    ['pip install pytest', 'an install'],
    ['echo run pytest', 'an echo'],
    ['cat tests/runtests.py', 'a read'],
    ['grep -r "pytest" src', 'a search'],
    ['npm run build', 'another npm script'],
    ['go build ./...', 'a build'],
    ['cargo build', 'a build'],
    ['mvn package', 'a build'],
    ['rake build', 'a build'],
    ['make', 'a default make'],
    ['make build', 'a build target'],
  ])('finds no test command in %j (%s)', (commandLine) => {
    expect(findTestCommand(commandLine)).toBeUndefined();
  });

  it('anchors targets in the context, but keeps a Go package pattern as written', () => {
    expect(findTestCommand('pytest a.py', { cwd: 'pkg' })?.target).toBe('pkg/a.py');
    expect(findTestCommand('pytest /repo/tests/a.py', { repository: '/repo' })?.target).toBe('tests/a.py');
    expect(findTestCommand('pytest /repo', { repository: '/repo' })?.target).toBe('*');
    expect(findTestCommand('go test ./...', { cwd: 'pkg' })?.target).toBe('./...');
  });
});

describe('exitCode', () => {
  it.each([
    ['<returncode>1</returncode>', 1],
    ['<returncode> -9 </returncode>', -9],
    ['Exit code: 2', 2],
    ['exit status 3', 3],
    ['exit code=4', 4],
    ['Process exited with code 0', 0],
    ['output\n<returncode>0</returncode>\nmore', 0],
  ])('%j → %d', (output, code) => {
    expect(exitCode(output)).toBe(code);
  });

  it.each(['', 'nothing here', 'exit', '<returncode></returncode>'])('%j has no exit code', (output) => {
    expect(exitCode(output)).toBeUndefined();
  });
});

describe('testOutcome: the runner summary', () => {
  it.each<[string, string, TestRun['outcome']]>([
    ['pytest', '=== 3 passed in 0.1s ===', 'pass'],
    ['pytest', '=== 1 failed, 2 passed in 0.1s ===', 'fail'],
    ['pytest', '=== 2 errors in 0.1s ===', 'error'],
    ['pytest', '1 passed, 1 error in 1s', 'error'],
    ['pytest', '2 xfailed in 1s', 'pass'],
    ['pytest', '=== 1 failed in 1s ===\n=== 2 passed in 1s ===', 'pass'],
    ['pytest', 'collected 0 items', 'error'],
    ['pytest', '===== no tests ran in 0.01s =====', 'error'],
    ['unittest', 'Ran 3 tests in 0.1s\n\nOK', 'pass'],
    ['unittest', 'Ran 3 tests in 0.1s\n\nFAILED (failures=1)', 'fail'],
    ['unittest', 'Ran 0 tests in 0.0s\n\nOK', 'error'],
    ['js', '      Tests  2 passed (2)', 'pass'],
    ['js', 'Tests:       1 failed, 1 passed, 2 total', 'fail'],
    ['js', '  4 passing (20ms)\n  1 failing', 'fail'],
    ['js', '  4 passing (20ms)', 'pass'],
    ['js', 'No test files found, exiting with code 1', 'error'],
    ['go', 'ok  \tgithub.com/x/y\t0.1s', 'pass'],
    ['go', '--- FAIL: TestX (0.00s)\nFAIL\tgithub.com/x/y\t0.1s', 'fail'],
    ['go', 'FAIL\tgithub.com/x/y [build failed]', 'error'],
    ['go', '?   \tgithub.com/x/y\t[no test files]', 'error'],
    ['cargo', 'test result: ok. 1 passed; 0 failed', 'pass'],
    ['cargo', 'test result: FAILED. 0 passed; 1 failed', 'fail'],
    ['rspec', '3 examples, 0 failures', 'pass'],
    ['rspec', '3 examples, 1 failure', 'fail'],
    ['rspec', '0 examples, 0 failures', 'error'],
    ['phpunit', 'OK (3 tests, 3 assertions)', 'pass'],
    ['phpunit', 'FAILURES!\nTests: 3, Assertions: 3, Failures: 1.', 'fail'],
    ['phpunit', 'ERRORS!\nTests: 3, Errors: 1.', 'error'],
    ['jvm', '[INFO] BUILD SUCCESS', 'pass'],
    ['jvm', '[ERROR] BUILD FAILURE', 'fail'],
    ['dotnet', 'Passed!  - Failed: 0, Passed: 4', 'pass'],
    ['dotnet', 'Failed!  - Failed: 1, Passed: 3', 'fail'],
    ['tox', '  py39: commands succeeded\n  congratulations :)', 'pass'],
    ['tox', 'ERROR:   py39: commands failed', 'fail'],
    ['nox', 'nox > Session tests was successful.', 'pass'],
  ])('%s: %j → %s', (runner, output, outcome) => {
    expect(testOutcome(runner, output)).toBe(outcome);
  });

  it('trusts the summary over the exit code', () => {
    expect(testOutcome('pytest', '=== 3 passed in 0.1s ===\n<returncode>1</returncode>')).toBe('pass');
  });
});

describe('testOutcome: start failures, exit codes and missing output', () => {
  it.each<[string, string, TestRun['outcome']]>([
    ['pytest', 'bash: pytest: command not found', 'error'],
    ['pytest', '<returncode>1</returncode>\n/usr/bin/python: No module named pytest', 'error'],
    ['pytest', 'ImportError while loading conftest', 'error'],
    ['pytest', 'ERROR: file or directory not found: tests/nope.py', 'error'],
    ['js', 'npm ERR! Missing script: "test"', 'error'],
    ['cargo', 'error[E0425]: cannot find value `x`', 'error'],
    ['pytest', '<returncode>0</returncode>\nsome output', 'pass'],
    ['pytest', '<returncode>1</returncode>\nsome output', 'fail'],
    ['pytest', '<returncode>4</returncode>\nusage error', 'error'],
    ['js', '<returncode>4</returncode>\nsome output', 'fail'],
    ['tool', 'exit code: 0', 'pass'],
    ['pytest', 'output without any summary', 'unknown'],
    ['pytest', '5 skipped in 1s', 'unknown'],
  ])('%s: %j → %s', (runner, output, outcome) => {
    expect(testOutcome(runner, output)).toBe(outcome);
  });

  it.each([undefined, '', '   \n\t'])('is unknown without output (%j)', (output) => {
    expect(testOutcome('pytest', output)).toBe('unknown');
  });

  it('is an error when the tool call itself failed, whatever the output says', () => {
    expect(testOutcome('pytest', '=== 3 passed in 0.1s ===', true)).toBe('error');
    expect(testOutcome('script', undefined, true)).toBe('error');
  });
});

describe('testOutcome: reproduction scripts', () => {
  it.each<[string, TestRun['outcome']]>([
    ['<returncode>0</returncode>\nAll good', 'pass'],
    ['<returncode>1</returncode>\nassert failed', 'fail'],
    ['Traceback (most recent call last):\n  File "reproduce.py", line 3', 'fail'],
    ["python: can't open file '/repo/reproduce.py': [Errno 2] No such file or directory", 'error'],
    ["FileNotFoundError: [Errno 2] No such file or directory: 'helper.py'", 'error'],
    ['bash: python: command not found\n<returncode>127</returncode>', 'error'],
    ['All good', 'unknown'],
  ])('%j → %s', (output, outcome) => {
    expect(testOutcome('script', output)).toBe(outcome);
  });

  it('judges a script by its exit code, not by a test summary it prints', () => {
    expect(testOutcome('script', '=== 3 passed in 0.1s ===\n<returncode>1</returncode>')).toBe('fail');
  });
});

describe('detectTestRun', () => {
  it('gives the command, its target and its outcome', () => {
    expect(detectTestRun('cd /repo && pytest tests/a.py', '=== 1 failed in 0.1s ===')).toEqual({
      command: 'pytest tests/a.py',
      target: 'tests/a.py',
      outcome: 'fail',
    });
  });

  it('names the target relative to the repository of the context', () => {
    expect(detectTestRun('pytest /repo/tests/a.py', '1 passed', false, { repository: '/repo' })).toEqual({
      command: 'pytest /repo/tests/a.py',
      target: 'tests/a.py',
      outcome: 'pass',
    });
  });

  it('reports an unanswered run as unknown and an errored call as an error', () => {
    expect(detectTestRun('pytest', undefined)?.outcome).toBe('unknown');
    expect(detectTestRun('npm test', 'Tests  2 passed (2)', true)?.outcome).toBe('error');
  });

  it('is undefined for a command that runs no tests, whatever its output', () => {
    expect(detectTestRun('ls tests', '=== 3 passed in 0.1s ===')).toBeUndefined();
  });
});
