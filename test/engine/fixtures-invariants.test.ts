import { resolve } from 'node:path';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { extractiveSummarizer, type Summarizer } from '../../adapters/ai-sdk/index.js';
import { toTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { withContextCompression } from '../../adapters/ai-sdk/with-context-compression.js';
import { assistantTurns, fixturesDir, readSessions, toModelMessages } from '../../examples/lib/session-file.js';
import { findPairingProblems } from '../../src/advanced.js';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import { DEFAULT_AWARENESS_BLOCK } from '../../src/options/prompts.js';
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

/** A tool output as text: a text value as it is, anything else as JSON. */
const outputText = (output: { type: string; value?: unknown }) =>
  output.type === 'text' || output.type === 'error-text' ? String(output.value) : JSON.stringify(output.value);

/** Keys tool results by call id and occurrence (`id#2` for the second result of a repeated id). */
function occurrenceKeys() {
  const seen = new Map<string, number>();
  return (id: string) => {
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    return count === 1 ? id : `${id}#${count}`;
  };
}

/** The tool results of the caller's history, by call id and occurrence. */
function outputs(history: readonly ModelMessage[]): Map<string, string> {
  const byId = new Map<string, string>();
  const keyOf = occurrenceKeys();
  for (const message of history) {
    if (message.role !== 'tool') continue;
    for (const part of message.content)
      if (part.type === 'tool-result') byId.set(keyOf(part.toolCallId), outputText(part.output));
  }
  return byId;
}

/** The tool results of a prompt that compression replaced by a placeholder, by call id and occurrence. */
function placeholders(prompt: LanguageModelV4Prompt): Map<string, string> {
  const byId = new Map<string, string>();
  const keyOf = occurrenceKeys();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const key = keyOf(part.toolCallId);
      if (part.output.type !== 'text') continue;
      if (/^\[Result of .* (cleared to save context|redacted at the assistant's request)/s.test(part.output.value))
        byId.set(key, part.output.value);
    }
  }
  return byId;
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
        let awareShown = false;
        let compressions = 0;
        let folds = 0;
        for (const end of assistantTurns(messages)) {
          const history = messages.slice(0, end);
          const frozen = JSON.stringify(history);
          await generateText({ model, instructions, messages: history });
          const prompt = mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt;
          expect(JSON.stringify(history), 'caller messages are not mutated').toBe(frozen);
          // the caller's system prompt byte for byte; the awareness block after it from the first prompt that is
          // not the history as it came, then on every call
          const systemMessages = prompt.filter((message) => message.role === 'system');
          const system = JSON.stringify(systemMessages[0]);
          systemPrompt ??= system;
          expect(system, 'system prompt byte-identical').toBe(systemPrompt);
          const aware = systemMessages.length === 2 && systemMessages[1]?.content === DEFAULT_AWARENESS_BLOCK;
          const changed =
            prompt.length - systemMessages.length !== history.length ||
            /cleared to save context|cut from the middle|left out, about \d+ tokens|<recalled_messages>/.test(
              JSON.stringify(prompt),
            );
          expect(systemMessages.length, 'the caller’s system prompt, then at most the awareness block').toBe(
            aware ? 2 : 1,
          );
          if (awareShown || changed) expect(aware, 'the awareness block from the first change on').toBe(true);
          awareShown ||= aware;
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
          // a placeholder is never longer than the result it replaces
          const originals = outputs(history);
          for (const [id, placeholder] of placeholders(prompt)) {
            // occurrences count from the prompt's first message: after a fold, only a key of the history's
            // first occurrence (no `#`) is sure to name the same result
            const original = id.includes('#') ? undefined : originals.get(id);
            if (original !== undefined && !originals.has(`${id}#2`))
              expect(meter.countText(placeholder), `placeholder of ${id}`).toBeLessThan(meter.countText(original));
          }
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
