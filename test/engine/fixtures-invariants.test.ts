import { resolve } from 'node:path';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { extractiveSummarizer, findPairingProblems, type Summarizer } from '../../adapters/ai-sdk/index.js';
import { toTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { withContextCompression } from '../../adapters/ai-sdk/with-context-compression.js';
import { assistantTurns, fixturesDir, readSessions, toModelMessages } from '../../examples/lib/session-file.js';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import { echoModel } from '../helpers/mock-model.js';

const dir = fixturesDir();
if (!dir) console.warn('skipping fixture invariants: ../shared/fixtures is not beside this checkout');
const sessions = dir ? readSessions(resolve(dir, 'trajectories.jsonl')) : [];
const meter = new MessageMeter(tiktokenCounter());

function promptTokens(prompt: LanguageModelV4Prompt): number {
  const transcript = toTranscript(prompt, undefined);
  return [...transcript.system, ...transcript.messages].reduce(
    (sum, message) => sum + meter.measure(message).tokens,
    0,
  );
}

describe.skipIf(!dir)('DESIGN.md invariants on every step of every fixture trajectory', () => {
  for (const contextWindow of [16_000, 200_000]) {
    it.each(sessions.map((session) => [session.id, session] as const))(
      `%s at a ${contextWindow / 1000}k window`,
      async (_id, session) => {
        const { instructions, messages } = toModelMessages(session);
        const inner = extractiveSummarizer();
        let summarizerCalls = 0;
        const summarizer: Summarizer = {
          name: 'counting',
          summarize: (input) => {
            summarizerCalls++;
            return inner.summarize(input);
          },
        };
        const mock = echoModel();
        const reserveOutputTokens = 2_000;
        const model = withContextCompression(mock, { contextWindow, reserveOutputTokens, summarizer });
        const budget = contextWindow - reserveOutputTokens;
        let systemPrompt: string | undefined;
        let compressions = 0;
        let folds = 0;
        for (const end of assistantTurns(messages)) {
          const history = messages.slice(0, end);
          const frozen = JSON.stringify(history);
          await generateText({ model, instructions, messages: history });
          const prompt = mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt;
          expect(JSON.stringify(history), 'caller messages are not mutated').toBe(frozen);
          const system = JSON.stringify(prompt.filter((message) => message.role === 'system'));
          systemPrompt ??= system;
          expect(system, 'system prompt byte-identical').toBe(systemPrompt);
          expect(prompt.findIndex((message) => message.role !== 'system')).toBe(
            prompt.filter((m) => m.role === 'system').length,
          );
          expect(findPairingProblems(toTranscript(prompt, undefined).messages)).toEqual([]);
          expect(promptTokens(prompt), 'under the hard limit').toBeLessThanOrEqual(budget * 0.85);
          const text = JSON.stringify(prompt);
          const first = prompt.find((message) => message.role !== 'system');
          const hasState = first?.role === 'user' && JSON.stringify(first.content).includes('"text":"<session_state>');
          if (hasState) folds++;
          if (hasState || /cleared to save context|cut from the middle|left out, about \d+ tokens/.test(text))
            compressions++;
          expect(text).not.toMatch(/SummarizerError|Summarizer ".*" failed/);
        }
        const rawTokens = session.messages.reduce((sum, message) => sum + meter.countText(JSON.stringify(message)), 0);
        // with semantic triggers a finished segment may be folded at 200k too, but folds stay rare
        expect(summarizerCalls).toBeLessThan(Math.max(2, assistantTurns(messages).length / 3));
        if (contextWindow === 16_000 && rawTokens > budget) {
          expect(compressions, 'a history larger than the budget was compressed').toBeGreaterThan(0);
          // folds happen in batches and are reused from the store: far fewer summarizer calls than model calls
          expect(summarizerCalls).toBeLessThan(assistantTurns(messages).length / 3);
        }
        expect(folds === 0 || summarizerCalls > 0).toBe(true);
      },
    );
  }
});
