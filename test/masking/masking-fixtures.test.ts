import { resolve } from 'node:path';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { withContextCompression } from '../../adapters/ai-sdk/index.js';
import { toTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { assistantTurns, fixturesDir, readSessions, toModelMessages } from '../../examples/lib/session-file.js';
import { findPairingProblems } from '../../src/advanced.js';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import { echoModel } from '../helpers/mock-model.js';

const dir = fixturesDir();
if (!dir) console.warn('skipping masking fixture replays: ../shared/fixtures is not beside this checkout');
const sessions = dir ? readSessions(resolve(dir, 'trajectories.jsonl')) : [];
const meter = new MessageMeter(tiktokenCounter());

/** Tool result outputs of a prompt by tool call id. */
function outputs(prompt: LanguageModelV4Prompt): Map<string, string> {
  const found = new Map<string, string>();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') found.set(part.toolCallId, part.output.type === 'text' ? part.output.value : '');
    }
  }
  return found;
}

describe.skipIf(!dir)('observation masking on every step of every fixture trajectory', () => {
  for (const contextWindow of [200_000, 16_000]) {
    it.each(sessions.map((session) => [session.id, session] as const))(
      `%s at ${contextWindow / 1000}k`,
      async (_id, session) => {
        const { instructions, messages } = toModelMessages(session);
        // outputs by call id; ids that an agent reused for several calls are left out of the length check
        const originals = new Map<string, string>();
        const reused = new Set<string>();
        for (const message of messages) {
          if (message.role !== 'tool') continue;
          for (const part of message.content) {
            if (part.type !== 'tool-result' || part.output.type !== 'text') continue;
            if (originals.has(part.toolCallId)) reused.add(part.toolCallId);
            originals.set(part.toolCallId, part.output.value);
          }
        }
        const mock = echoModel();
        let events = 0;
        const model = withContextCompression(mock, {
          contextWindow,
          reserveOutputTokens: 2_000,
          onCompress: () => events++,
        });
        let previous: LanguageModelV4Prompt | undefined;
        let masked = 0;
        let stableSteps = 0;
        for (const end of assistantTurns(messages)) {
          const before = events;
          await generateText({ model, instructions, messages: messages.slice(0, end) });
          const prompt = mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt;
          expect(findPairingProblems(toTranscript(prompt, undefined).messages)).toEqual([]);
          for (const [id, output] of outputs(prompt)) {
            const original = originals.get(id) ?? '';
            if (output === original || reused.has(id)) continue;
            if (output.includes('cleared to save context')) masked++;
            // a placeholder (or a shortened result) is never longer than what it replaces
            expect(meter.countText(output)).toBeLessThan(meter.countText(original));
          }
          if (previous && events === before) {
            // no compression in this call: the previous prompt is a byte-identical prefix of this one
            expect(JSON.stringify(prompt.slice(0, previous.length))).toBe(JSON.stringify(previous));
            stableSteps++;
          }
          previous = prompt;
        }
        expect(stableSteps).toBeGreaterThan(assistantTurns(messages).length / 2);
        if (contextWindow === 16_000 && session.id.startsWith('mini-swe-agent'))
          expect(masked + events).toBeGreaterThan(0);
      },
    );
  }
});
