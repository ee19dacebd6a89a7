import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { withContextCompression } from '../../../adapters/langchain/with-context-compression.js';
import { approximateCounter } from '../../../src/counting/token-counter.js';
import type { CompressEvent } from '../../../src/index.js';
import { extractiveSummarizer } from '../../../src/summarizers/extractive-summarizer.js';

const offline = extractiveSummarizer();

/** A chat of `turns` questions and answers, each about 250 tokens. */
function chat(turns: number): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push(new HumanMessage(`Question ${turn}: FACT-${turn} holds. ${'details '.repeat(110)}`));
    messages.push(new AIMessage(`Answer ${turn}: noted FACT-${turn}. ${'details '.repeat(110)}`));
  }
  return messages;
}

describe('summaries made ahead of time (LangChain)', () => {
  it('summarizes before the call that folds, which calls no summarizer of its own', async () => {
    const calls: number[] = [];
    let turn = 0;
    const events: { event: CompressEvent; summariesBefore: number }[] = [];
    let fake = fakeModel();
    for (let index = 0; index < 60; index++) fake = fake.respond(new AIMessage('ok'));
    const model = withContextCompression(fake, {
      contextWindow: 8_000,
      reserveOutputTokens: 0,
      tokenCounter: approximateCounter(),
      summarizeAhead: {},
      summarizer: async (input) => {
        calls.push(turn);
        return offline.summarize(input);
      },
      onCompress: (event) => {
        if (event.messagesFolded > 0) events.push({ event, summariesBefore: calls.length });
      },
    });
    for (turn = 1; events.length === 0 && turn < 60; turn++) {
      await model.invoke([...chat(turn), new HumanMessage('And now?')]);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [first] = events;
    expect(first?.event.decisions.some((decision) => decision.details.includes('summarized ahead of time'))).toBe(true);
    // the summary was made by an earlier call's background work: the folding call made none
    expect(first?.summariesBefore).toBe(1);
    expect(calls[0]).toBeLessThan(turn - 1);
  });
});
