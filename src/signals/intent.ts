/**
 * Intent and completion signals: what an agent step is doing (explore, debug, implement, verify, document,
 * refactor), scored offline from its words and its actions, and whether its text says a (sub)task is done.
 */
import { aciToolVerb } from './aci-commands.js';
import { aciCommandsOf, shellCommandsOf } from './command-texts.js';
import { programOf, unwrap } from './commands.js';
import { isDocPath, isScratchDebugPath, isTestPath } from './paths.js';
import { lexShell } from './shell.js';
import type { Intent, TestRun } from './step-signals.js';
import { findTestCommand } from './tests.js';
import { type ToolVerb, toolVerb } from './tool-verbs.js';

export { shellCommandsOf };

/** Order that breaks score ties: the first listed wins. */
export const INTENT_ORDER: readonly Intent[] = ['IMPLEMENT', 'VERIFY', 'DEBUG', 'REFACTOR', 'DOCUMENT', 'EXPLORE'];

/** Keyword patterns per intent; each distinct keyword found adds 1, at most 3 per intent. */
const WORDS: Readonly<Record<Intent, RegExp>> = {
  EXPLORE:
    /\b(?:look(?:ing)? (?:at|into|for|around)|let me see|find|search(?:ing)?|understand\w*|where|explor\w*|examin\w*|inspect\w*|locat\w*|structure|overview|browse|list(?:ing)? (?:the|all)|read(?:ing)? (?:the|through)|check(?:ing)? (?:the )?(?:structure|contents?|code|file|definition|implementation|details?))\b/gi,
  DEBUG:
    /\b(?:errors?|traceback|exceptions?|fail(?:s|ed|ing|ure)?|bugs?|reproduc\w*|why|investigat\w*|debug\w*|crash\w*|root cause|stack trace|unexpected\w*|broken|wrong)\b/gi,
  IMPLEMENT:
    /\b(?:implement\w*|add(?:ing)?|fix(?:ing)? (?:it|this|that|the)|fix by|chang(?:e|ing)|modif(?:y|ying|ication)|updat(?:e|ing) the (?:code|function|method|logic|implementation|class)|edit(?:ing)?|replac(?:e|ing)|apply(?:ing)? the|insert(?:ing)?|writ(?:e|ing) (?:the|a) (?:fix|patch|function|method|code))\b/gi,
  VERIFY:
    /\b(?:run(?:ning)? (?:the |all |existing |relevant )?(?:unit )?tests?|tests? pass\w*|verif(?:y|ying|ied|ication)|confirm\w*|check (?:that|if|whether)|make sure|ensur\w*|validat\w*|sanity|works? (?:now|correctly|as expected))\b/gi,
  DOCUMENT:
    /\b(?:docs|documentation|readme|docstrings?|changelog|release notes|(?:code )?comments?|typos?|document (?:the|this|it))\b/gi,
  REFACTOR:
    /\b(?:refactor\w*|renam(?:e|es|ed|ing)|clean(?:ing)? up the code|extract\w*|simplif\w*|restructur\w*|reorganiz\w*|deduplicat\w*|move (?:the|this) (?:code|function|class|method))\b/gi,
};

const EXPLORE_PROGRAMS = new Set([
  'ls',
  'find',
  'tree',
  'grep',
  'egrep',
  'rg',
  'ag',
  'cat',
  'head',
  'tail',
  'nl',
  'less',
]);
const RENAME_TOOL = /(?:^|_)(?:rename|move|mv)(?:$|_)/i;

/** What a call does by the verb of its tool name and of its ACI commands (`open`, `edit`, `submit`). */
export function callVerbs(call: { name: string; args: unknown }): ToolVerb[] {
  const verbs = aciCommandsOf(call.args).map(aciToolVerb);
  const named = toolVerb(call.name);
  if (named && !verbs.includes(named)) verbs.push(named);
  return verbs;
}

/**
 * Intent of a step from its text and its actions; scores add up, ties go to the earlier intent of INTENT_ORDER,
 * and a step with no evidence at all is EXPLORE. `previousTest` is the latest earlier test run, if any.
 */
export function classifyIntent(
  text: string,
  calls: ReadonlyArray<{ name: string; args: unknown }>,
  reads: readonly string[],
  edits: readonly string[],
  test: TestRun | undefined,
  previousTest?: TestRun,
): Intent {
  const score: Record<Intent, number> = { EXPLORE: 0, DEBUG: 0, IMPLEMENT: 0, VERIFY: 0, DOCUMENT: 0, REFACTOR: 0 };
  for (const intent of INTENT_ORDER) {
    const found = new Set((text.match(WORDS[intent]) ?? []).map((w) => w.toLowerCase()));
    score[intent] += Math.min(3, found.size);
  }
  const docs = edits.filter(isDocPath);
  const scratch = edits.filter((p) => !isDocPath(p) && isScratchDebugPath(p));
  const tests = edits.filter((p) => !isDocPath(p) && !isScratchDebugPath(p) && isTestPath(p));
  const code = edits.length - docs.length - scratch.length - tests.length;
  let renames = false;
  let explores = reads.length > 0;
  for (const call of calls) {
    const verbs = callVerbs(call);
    const shell = shellCommandsOf(call.args);
    if (RENAME_TOOL.test(call.name)) renames = true;
    if (verbs.some((verb) => verb === 'read' || verb === 'search' || verb === 'list')) explores = true;
    // a change with no file edited: an API call that changes a record (book, cancel, update), or an ACI edit of a
    // file not known to be open; shell commands and file tools are judged by what they edit
    if (verbs.includes('write') && shell.length === 0 && edits.length === 0) score.IMPLEMENT += 2;
    for (const command of shell) {
      for (const simple of lexShell(command)) {
        const { words } = unwrap(simple);
        const program = programOf(words[0]);
        if (EXPLORE_PROGRAMS.has(program)) explores = true;
        if (program === 'mv' || (program === 'git' && words[1] === 'mv')) renames = true;
        if (program === 'git' && /^(?:diff|status)$/.test(words[1] ?? '')) score.VERIFY += 1;
      }
    }
  }
  if (explores) score.EXPLORE += 2;
  if (docs.length > 0) score.DOCUMENT += docs.length === edits.length ? 4 : 1;
  if (code > 0) {
    score.IMPLEMENT += 3;
    if (renames || /\b(?:refactor|renam|extract|simplif|restructur|reorganiz|deduplicat|move)/i.test(text))
      score.REFACTOR += 4;
  }
  if (scratch.length > 0) score.DEBUG += 3;
  if (tests.length > 0) score.VERIFY += 3;
  if (test) {
    const script = isScriptRun(test);
    if (script && test.outcome === 'fail') score.DEBUG += 3;
    else score.VERIFY += 3;
    if (script && previousTest && previousTest.outcome !== 'pass') score.DEBUG += 2;
  }
  let best: Intent = 'EXPLORE';
  let bestScore = 0;
  for (const intent of INTENT_ORDER) {
    if (score[intent] > bestScore) {
      best = intent;
      bestScore = score[intent];
    }
  }
  return best;
}

/** True when a test run is a reproduction or check script rather than a test runner. */
export const isScriptRun = (test: TestRun): boolean => findTestCommand(test.command)?.runner === 'script';

/** Phrases that state a task or subtask is finished. */
const COMPLETION =
  /^(?:fixed|resolved|completed|finished)\b(?!\s*[=(.[])|\b(?:(?:all )?done|(?:is|are|been|now|successfully) (?:now )?(?:fixed|resolved|solved|addressed|complete|completed|finished|implemented|in place)|(?:i|we)(?:'ve| have)? (?:now )?(?:successfully )?(?:fixed|resolved|implemented|completed|finished|applied the (?:fix|patch|changes?)|made the (?:necessary )?changes?)|(?:task|subtask|fix|work|implementation|job|change|changes|feature|refactor(?:ing)?|migration) (?:is |are )?(?:now )?(?:complete|completed|finished|done)|all (?:the )?(?:\d+ )?tests? (?:now )?pass(?:ed|es)?|tests? (?:now )?pass(?:es)? now|this completes|that completes|completes the task|task complete|COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT)\b/gi;
const NEGATION =
  /\b(?:not|no|never|nothing|yet to|hardly|almost|nearly|partially|isn't|aren't|wasn't|weren't|hasn't|haven't|hadn't|won't|doesn't|don't|didn't|cannot|can't|couldn't|shouldn't|without)\b/i;
const FUTURE =
  /\b(?:once|when|whenever|after|until|before|if|unless|as soon as|so that|whether|where|which|will|'ll|going to|need to|needs to|have to|has to|want to|would|could|might|may|to be|let me|let's|i'll|should i)\b/i;
const EXPLANATION = /^\s*(?:by|via|through|using|when|whenever|if|unless|once|as soon as|until|provided|assuming)\b/i;
const DONE_EXPLANATION = /^\s*(?:with|in|inside|before|after)\b/i;

/**
 * A word every form `COMPLETION` matches contains (case aside): a text without one says nothing is done, and is not
 * split into sentences at all (most messages of a chat).
 */
const COMPLETION_WORD =
  /fixed|resolved|complete|finished|done|solved|addressed|implemented|in place|applied the|made the|pass/i;

/** True when the text says a task or subtask is done; questions, negations and future or conditional forms are not. */
export function isCompletionStatement(text: string): boolean {
  if (!COMPLETION_WORD.test(text)) return false;
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    const trimmed = sentence.trim();
    if (trimmed === '' || /\?\s*$/.test(trimmed)) continue;
    for (const match of trimmed.matchAll(COMPLETION)) {
      const index = match.index ?? 0;
      const before = trimmed.slice(0, index);
      const clause = before.split(/[,;:]|\b(?:but|and then|although|though)\b/i).pop() ?? '';
      const after = trimmed.slice(index + match[0].length);
      if (NEGATION.test(clause) || FUTURE.test(clause)) continue;
      if (/^\s*(?:yet|later|soon)\b/i.test(after)) continue;
      if (EXPLANATION.test(after) || (/^(?:all )?done$/i.test(match[0]) && DONE_EXPLANATION.test(after))) continue;
      return true;
    }
  }
  return false;
}
