/**
 * Test-run signals: which commands run tests (or a reproduction script), what they target, and how they ended.
 * The outcome comes from the runner's own summary first, then from start failures, then from the exit code.
 */
import { isPython, programOf, unwrap } from './commands.js';
import { normalizePath, type PathContext } from './paths.js';
import { lexShell } from './shell.js';
import type { TestRun } from './step-signals.js';

/** A matched test command: the runner family, or 'script' for a reproduction/check script judged by exit code. */
export interface TestCommand {
  readonly runner: string;
  readonly command: string;
  readonly target: string;
}

const SCRIPT = /^(?:reproduce|repro|verify|test)[\w.-]*\.py$|^[\w.-]+_tests?\.py$/i;
const PYTEST_VALUES = ['-k', '-m', '-p', '-c', '-W', '-n', '-o', '--deselect', '--ignore', '--rootdir', '--tb', '-r'];

/** The test command inside a command line (first match), or undefined; `context` anchors its target paths. */
export function findTestCommand(commandLine: string, context: PathContext = {}): TestCommand | undefined {
  for (const simple of lexShell(commandLine)) {
    const { words } = unwrap(simple);
    const match = matchRunner(words);
    if (!match) continue;
    const targets = match.targets.map((t) => (t === './...' ? t : normalizePath(t, context))).filter((t) => t !== '');
    return { runner: match.runner, command: words.join(' '), target: targets.length > 0 ? targets.join(' ') : '*' };
  }
  return undefined;
}

/** Runner and target words of one simple command. */
function matchRunner(words: string[]): { runner: string; targets: string[] } | undefined {
  const program = programOf(words[0]);
  const rest = words.slice(1);
  const plain = (list: string[], skip: readonly string[] = []) => {
    const out: string[] = [];
    for (let k = 0; k < list.length; k++) {
      const w = list[k] as string;
      if (skip.includes(w)) k++;
      else if (!w.startsWith('-')) out.push(w);
    }
    return out;
  };
  if (isPython(program)) {
    let k = 0;
    while (k < rest.length && (rest[k] as string).startsWith('-') && rest[k] !== '-m' && rest[k] !== '-c')
      k += /^-[WX]$/.test(rest[k] as string) ? 2 : 1;
    const head = rest[k];
    if (head === '-c' || head === undefined) return undefined;
    if (head === '-m') {
      const module = rest[k + 1];
      const after = rest.slice(k + 2);
      if (module === 'pytest' || module === 'py.test')
        return { runner: 'pytest', targets: plain(after, PYTEST_VALUES) };
      if (module === 'unittest') return { runner: 'unittest', targets: plain(after) };
      if (module === 'tox' || module === 'nox') return { runner: module, targets: [] };
      if (module === 'django' && after[0] === 'test') return { runner: 'unittest', targets: plain(after.slice(1)) };
      return undefined;
    }
    const script = programOf(head);
    const after = rest.slice(k + 1);
    if (script === 'runtests.py') return { runner: 'unittest', targets: plain(after) };
    if (script === 'manage.py' && after[0] === 'test') return { runner: 'unittest', targets: plain(after.slice(1)) };
    if (SCRIPT.test(script)) return { runner: 'script', targets: [head] };
    return undefined;
  }
  if (program === 'runtests.py') return { runner: 'unittest', targets: plain(rest) };
  if (program === 'pytest' || program === 'py.test') return { runner: 'pytest', targets: plain(rest, PYTEST_VALUES) };
  if (program === 'tox' || program === 'nox') return { runner: program, targets: [] };
  if (/^(?:npm|yarn|pnpm|bun)$/.test(program)) {
    const sub = rest[0] === 'run' ? rest[1] : rest[0];
    const dash = rest.indexOf('--');
    if (sub && /^(?:test|t)(?::[\w:-]+)?$/.test(sub))
      return { runner: 'js', targets: dash < 0 ? [] : plain(rest.slice(dash + 1)) };
    if (sub && /^(?:vitest|jest|mocha)$/.test(sub)) return matchRunner(rest[0] === 'run' ? rest.slice(1) : rest);
    return undefined;
  }
  if (program === 'vitest' || program === 'jest' || program === 'mocha' || program === 'ava') {
    return { runner: 'js', targets: plain(rest).filter((w) => !/^(?:run|watch|related)$/.test(w)) };
  }
  if (program === 'go' && rest[0] === 'test')
    return { runner: 'go', targets: plain(rest.slice(1), ['-run', '-count', '-timeout']) };
  if (program === 'cargo' && (rest[0] === 'test' || rest[0] === 'nextest')) {
    return { runner: 'cargo', targets: plain(rest.slice(rest[1] === 'run' ? 2 : 1)) };
  }
  if (/^(?:mvn|mvnw|gradle|gradlew)$/.test(program) && rest.some((w) => /^(?:test|verify|check)$/.test(w))) {
    return { runner: 'jvm', targets: [] };
  }
  if (program === 'bundle' && rest[0] === 'exec') return matchRunner(rest.slice(1));
  if (program === 'rspec') return { runner: 'rspec', targets: plain(rest) };
  if (program === 'rake' && /^(?:test|spec)$/.test(rest[0] ?? '')) return { runner: 'rspec', targets: [] };
  if (program === 'phpunit') return { runner: 'phpunit', targets: plain(rest) };
  if (program === 'dotnet' && rest[0] === 'test') return { runner: 'dotnet', targets: plain(rest.slice(1)) };
  if (program === 'make' && rest.some((w) => /^(?:test|tests|check)$/.test(w))) return { runner: 'make', targets: [] };
  if (/^(?:deno|swift|mix)$/.test(program) && rest[0] === 'test')
    return { runner: program, targets: plain(rest.slice(1)) };
  return undefined;
}

/** Counts in a summary such as `2 failed, 185 passed, 6 skipped in 1.9s`. */
function count(text: string, word: RegExp): number {
  let total = 0;
  for (const match of text.matchAll(new RegExp(`(\\d+) (?:${word.source})`, 'gi'))) total += Number(match[1]);
  return total;
}

/** Outcome from the runner's own summary, if it printed one. */
function summaryOutcome(runner: string, out: string): TestRun['outcome'] | undefined {
  if (
    /\bno tests ran\b|\bcollected 0 items\b|^Ran 0 tests\b|\bNo tests? (?:files? )?found\b|\b0 examples\b/im.test(out)
  )
    return 'error';
  const pytest = [
    ...out.matchAll(
      /^=*\s*((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)(?:, )?)+)(?: in [\d.]+s)?/gm,
    ),
  ].pop();
  if (pytest) {
    const line = pytest[1] as string;
    if (count(line, /failed/) > 0) return 'fail';
    if (count(line, /errors?/) > 0) return 'error';
    if (count(line, /passed|xfailed|xpassed/) > 0) return 'pass';
  }
  if (/^Ran \d+ tests?\b/m.test(out)) {
    if (/^FAILED \(/m.test(out)) return 'fail';
    if (/^OK\b/m.test(out)) return 'pass';
  }
  const vitest = /^\s*Tests:?\s+(.*)$/m.exec(out)?.[1];
  if (vitest && /\d+ (?:failed|passed)/.test(vitest)) return count(vitest, /failed/) > 0 ? 'fail' : 'pass';
  if (/\d+ failing\b/.test(out)) return 'fail';
  if (/\d+ passing\b/.test(out)) return 'pass';
  if (runner === 'go') {
    if (/^(?:--- FAIL|FAIL\b)/m.test(out)) return /\[(?:build|setup) failed\]/.test(out) ? 'error' : 'fail';
    if (/^ok\s/m.test(out)) return 'pass';
    if (/\[no test files\]/.test(out)) return 'error';
  }
  if (/^test result: FAILED/m.test(out)) return 'fail';
  if (/^test result: ok/m.test(out)) return 'pass';
  const rspec = /(\d+) examples?, (\d+) failures?/.exec(out);
  if (rspec) return rspec[2] === '0' ? 'pass' : 'fail';
  if (/^(?:FAILURES!|Failed!\s+-)|\bBUILD FAIL(?:URE|ED)\b/m.test(out)) return 'fail';
  if (/^ERRORS!/m.test(out)) return 'error';
  if (/^OK \(\d+ tests?|^Passed!\s+-|\bBUILD SUCCESS(?:FUL)?\b|congratulations :\)/m.test(out)) return 'pass';
  if (/\bcommands? failed\b|\bSession \S+ failed\b/.test(out)) return 'fail';
  if (/\bcommands succeeded\b|\bSession \S+ was successful\b/.test(out)) return 'pass';
  return undefined;
}

/** Signs that the command never got to run tests (missing tool, missing file, bad arguments). */
const START_FAILURE =
  /command not found|No module named|ERROR: (?:file or directory not found|file not found|not found:)|can't open file|No such file or directory|error: unrecognized arguments|ERROR: usage:|Unknown command|Missing script:|is not recognized as an internal or external command|ImportError while loading conftest|Interrupted: \d+ errors? during collection|error\[E\d+\]|could not compile/i;

/** Exit code of a tool output (`<returncode>1</returncode>`, `Exit code: 1`, `exit status 1`), if printed. */
export function exitCode(output: string): number | undefined {
  const match = /<returncode>\s*(-?\d+)\s*<\/returncode>|\bexit(?:ed with)? (?:code|status)[:=]?\s*(-?\d+)/i.exec(
    output,
  );
  const value = match?.[1] ?? match?.[2];
  return value === undefined ? undefined : Number(value);
}

/** The test run of a command with its outcome, or undefined when the command runs no tests. */
export function detectTestRun(
  command: string,
  output: string | undefined,
  isError?: boolean,
  context: PathContext = {},
): TestRun | undefined {
  const found = findTestCommand(command, context);
  if (!found) return undefined;
  return { command: found.command, target: found.target, outcome: testOutcome(found.runner, output, isError) };
}

/** Outcome of a run of `runner` from its output. */
export function testOutcome(runner: string, output: string | undefined, isError?: boolean): TestRun['outcome'] {
  if (isError) return 'error';
  if (output === undefined || output.trim() === '') return 'unknown';
  const code = exitCode(output);
  if (runner === 'script') {
    if (/can't open file|No such file or directory: '[^']*\.py'|command not found/.test(output.slice(0, 600)))
      return 'error';
    if (code !== undefined) return code === 0 ? 'pass' : 'fail';
    return /Traceback \(most recent call last\)/.test(output) ? 'fail' : 'unknown';
  }
  const summary = summaryOutcome(runner, output);
  if (summary) return summary;
  if (START_FAILURE.test(output)) return 'error';
  if (runner === 'pytest' && code !== undefined && code >= 2) return 'error';
  if (code !== undefined) return code === 0 ? 'pass' : 'fail';
  return 'unknown';
}
