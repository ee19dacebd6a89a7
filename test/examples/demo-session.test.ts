import { resolve } from 'node:path';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { withContextCompression } from '../../adapters/ai-sdk/index.js';
import { replaySession } from '../../examples/lib/replay.js';
import { readSessions } from '../../examples/lib/session-file.js';

const session = readSessions(resolve(import.meta.dirname, '../../examples/sessions/coding-agent.jsonl'))[0];
if (!session) throw new Error('the demo session is missing');
const task = session.messages.find((message) => message.role === 'user')?.content ?? '';

// facts the user set in the first message, which the agent must still honour at the end
const taskFacts = [
  'SEC-204',
  'src/auth/session.ts',
  'half-even',
  'FIN-1182',
  'INV-20931',
  '412.346',
  'calculateInvoiceTotals',
];

describe('the demo coding-agent session', () => {
  it('keeps the task constraints through every fold at a 16k window, after the task message itself was folded', async () => {
    const prompts: LanguageModelV4Prompt[] = [];
    const result = await replaySession(session, (mock) => {
      const record = mock.doGenerate;
      mock.doGenerate = async (options) => {
        prompts.push(options.prompt);
        return record(options);
      };
      return withContextCompression(mock, { contextWindow: 16_000, reserveOutputTokens: 2_000 });
    });
    expect(Math.max(...result.steps.map((step) => step.sentTokens))).toBeLessThanOrEqual(14_000 * 0.85);
    const folded = prompts.filter((prompt) => JSON.stringify(prompt).includes('"text":"<session_state>'));
    expect(folded.length).toBeGreaterThan(10);
    // the end of the task message (its opening line may be quoted in the state's salience)
    const withoutTask = folded.filter(
      (prompt) => !JSON.stringify(prompt).includes(JSON.stringify(task).slice(-200, -1)),
    );
    expect(withoutTask.length, 'the task message is folded away in later steps').toBeGreaterThan(0);
    for (const prompt of folded) {
      const text = JSON.stringify(prompt);
      for (const fact of taskFacts) expect(text, fact).toContain(fact);
    }
  });
});
