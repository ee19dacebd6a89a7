/**
 * Which agent wrote a recorded run. The agent figures are reported per source, so that a policy tuned on one agent's
 * tool format cannot pass for a general one.
 */
import type { SessionFile } from '../../examples/lib/session-file.js';
import { GENERIC_AGENT } from './generic-agent.js';

/** The agents of the fixture trajectories. */
export const FIXTURE_SOURCES = ['mini-swe-agent', 'tau-bench', 'SWE-agent'] as const;

/** One of {@link FIXTURE_SOURCES}. */
export type FixtureSource = (typeof FIXTURE_SOURCES)[number];

/** The agents the figures are reported for: those of the fixtures, then the generated one (generic-agent.ts). */
export const AGENT_SOURCES = [...FIXTURE_SOURCES, GENERIC_AGENT] as const;

/** One of {@link AGENT_SOURCES}. */
export type AgentSource = (typeof AGENT_SOURCES)[number];

/** SWE-agent's own commands (its agent-computer interface); mini-swe-agent only runs shell commands. */
const ACI_COMMANDS = new Set([
  'open',
  'goto',
  'scroll_up',
  'scroll_down',
  'edit',
  'create',
  'search_file',
  'search_dir',
  'find_file',
  'submit',
]);

const isCommandArgs = (args: unknown): boolean =>
  typeof args === 'object' &&
  args !== null &&
  Object.keys(args).length === 1 &&
  typeof (args as { command?: unknown }).command === 'string';

/**
 * The source told by the tool shapes alone: calls whose args are structured objects (anything but a single
 * `{command}` string) are a function-calling agent (tau-bench); calls that are all `{command}` strings are a
 * command-line agent, SWE-agent when one of them is an ACI command (open, edit, find_file, ...), mini-swe-agent
 * otherwise. Undefined for a run without tool calls.
 */
export function sourceFromTools(session: SessionFile): FixtureSource | undefined {
  const calls = session.messages.flatMap((message) => message.toolCalls ?? []);
  if (calls.length === 0) return undefined;
  if (!calls.every((call) => isCommandArgs(call.args))) return 'tau-bench';
  return calls.some((call) => ACI_COMMANDS.has(call.name)) ? 'SWE-agent' : 'mini-swe-agent';
}

/** The source named by the first segment of a run's `source` field, else of its `id` (case-insensitive). */
function namedSource<S extends string>(session: SessionFile, sources: readonly S[]): S | undefined {
  for (const label of [session.source, session.id]) {
    const head = label?.split('/')[0]?.toLowerCase();
    const named = sources.find((source) => head?.startsWith(source.toLowerCase()));
    if (named) return named;
  }
  return undefined;
}

/**
 * The source of a recorded run: the first segment of its `source` field (`mini-swe-agent/...`, `tau-bench/...`,
 * `swe-agent/...`, case-insensitive), else of its `id`, else {@link sourceFromTools}. Undefined when none applies.
 */
export function fixtureSource(session: SessionFile): FixtureSource | undefined {
  return namedSource(session, FIXTURE_SOURCES) ?? sourceFromTools(session);
}

/** The source of any run: {@link fixtureSource}, but a run labelled `generic-agent/...` is the generated agent's. */
export function agentSource(session: SessionFile): AgentSource | undefined {
  return namedSource(session, AGENT_SOURCES) ?? sourceFromTools(session);
}
