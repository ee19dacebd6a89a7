import { resolve } from 'node:path';
import { fixturesDir, readSessions, type SessionFileMessage } from '../../examples/lib/session-file.js';
import type { Message, Part } from '../../src/transcript/transcript.js';

/** A fixture message as one message of the engine's neutral transcript. */
export function toTranscriptMessage(message: SessionFileMessage): Message {
  if (message.role === 'tool') {
    return {
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: message.toolCallId ?? '',
          name: message.toolName ?? '',
          output: message.content,
        },
      ],
    };
  }
  const parts: Part[] = message.content ? [{ type: 'text', text: message.content }] : [];
  for (const call of message.toolCalls ?? []) {
    parts.push({ type: 'tool-call', id: call.id, name: call.name, args: call.args });
  }
  return { role: message.role, parts };
}

/** One fixture agent run as a neutral transcript. */
export interface FixtureTrajectory {
  readonly id: string;
  readonly source: string;
  readonly messages: readonly Message[];
}

/**
 * The fixture agent runs as neutral transcripts, or undefined (after printing why) when the shared fixtures folder is
 * not beside the checkout, so a fresh clone skips the tests that need them.
 */
export function fixtureTrajectories(): FixtureTrajectory[] | undefined {
  const dir = fixturesDir();
  if (!dir) {
    console.log('skipped fixture runs: ../shared/fixtures/trajectories.jsonl is not beside this checkout');
    return undefined;
  }
  return readSessions(resolve(dir, 'trajectories.jsonl')).map((session) => ({
    id: session.id,
    source: session.source ?? '',
    messages: session.messages.map(toTranscriptMessage),
  }));
}
