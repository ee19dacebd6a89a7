import { resolve } from 'node:path';
import { readSessions, type SessionFile } from '../examples/lib/session-file.js';

/**
 * The fixture histories grouped for a table: the chats as "LoCoMo chats", then the agent runs by `sourceName` of
 * their source (e.g. `mini-swe-agent/swe-bench-verified`).
 */
export function fixtureGroups(
  dir: string,
  sourceName: (source: string) => string = (source) => source,
): Map<string, SessionFile[]> {
  const groups = new Map<string, SessionFile[]>([['LoCoMo chats', readSessions(resolve(dir, 'conversations.jsonl'))]]);
  for (const session of readSessions(resolve(dir, 'trajectories.jsonl'))) {
    const name = sourceName(String(session.source));
    groups.set(name, [...(groups.get(name) ?? []), session]);
  }
  return groups;
}
