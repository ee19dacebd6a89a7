/**
 * What a tool does, read from the verb in its name, whatever the naming style: `read_file`, `getUserDetails`,
 * `update-reservation`, `MultiEdit`, `transfer_to_human_agents`. The first word of the name that is a known verb
 * decides, so `file_search` searches and `fs_read_file` reads.
 */

/**
 * A tool's action by its name: `read` reads or looks something up, `write` changes something (a file or a record),
 * `search` and `list` explore, `finish` ends the task (a submit, or a hand-off to a person).
 */
export type ToolVerb = 'read' | 'write' | 'search' | 'list' | 'finish';

const VERBS: Readonly<Record<string, ToolVerb>> = Object.fromEntries([
  ...words('read view open cat show get fetch load retrieve describe inspect check').map((w) => [w, 'read']),
  ...words(
    'write edit multiedit create replace patch insert update modify save append delete remove rename move mv ' +
      'overwrite put set add cancel book send exchange return change apply upsert reserve transfer undo',
  ).map((w) => [w, 'write']),
  ...words('search grep rg find locate lookup query browse glob').map((w) => [w, 'search']),
  ...words('list ls tree').map((w) => [w, 'list']),
]);

/** Whole names (as words joined by `_`) of tools that submit or finish the task. */
const FINISH =
  /^(?:(?:submit|finish|complete|end|done)(?:_(?:the_)?(?:task|work|job|answer|solution|result|patch|changes|conversation|session|chat))?|task_(?:complete|completed|done|finished)|mark_(?:complete|completed|done)|attempt_completion|final_answer)$/;
/** Names of tools that hand the conversation over to a person, which ends the agent's part of it. */
const HANDOFF =
  /^(?:transfer|hand_?off|handover|escalate|route)(?:_to)?_(?:a_|the_)?(?:human|live|agent|operator|support|representative|staff|person)/;

function words(text: string): string[] {
  return text.split(' ');
}

/** The lowercase words of a tool name: snake, kebab, dotted and camel case are split (`getUserDetails` → get user details). */
export function toolNameWords(name: string): string[] {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z\d]+/)
    .filter((word) => word !== '');
}

/** What a tool does by its name, or undefined when its name holds no known verb (`bash`, `think`, `calculate`). */
export function toolVerb(name: string): ToolVerb | undefined {
  const nameWords = toolNameWords(name);
  const joined = nameWords.join('_');
  if (FINISH.test(joined) || HANDOFF.test(joined)) return 'finish';
  for (const word of nameWords) {
    const verb = VERBS[word];
    if (verb) return verb;
  }
  return undefined;
}
