import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  type CompressEvent,
  type CompressionReport,
  modelSummarizer,
  withContextCompression,
} from '../../../adapters/ai-sdk/index.js';
import { continuationInstruction, stateFromText } from '../../../src/summarizers/prompt-continuation.js';

/** A fold's summary by the agent's own model, as a continuation of its cached prompt. */

const MEMORY_UPDATE = '[Memory update';
const isSummaryRequest = (prompt: LanguageModelV4Prompt) => {
  const last = prompt.at(-1);
  return (
    last?.role === 'user' && last.content.some((part) => part.type === 'text' && part.text.startsWith(MEMORY_UPDATE))
  );
};
const STATE = {
  logos: ['The review covers file-0.ts to file-9.ts.'],
  pathos: [],
  abstract: [],
  salience: [],
  conversationSummary: 'The assistant read files one by one.',
};

/**
 * A tool loop that reads one large file per step; the provider's usage says it caches (`cache`); a summary request
 * (the instruction as the last message) is answered with `answer`.
 */
function reviewModel({
  cache = true,
  answer = () => `\`\`\`json\n${JSON.stringify(STATE)}\n\`\`\``,
}: {
  cache?: boolean;
  answer?: () => string;
} = {}) {
  let step = 0;
  const calls: LanguageModelV4CallOptions[] = [];
  const model = new MockLanguageModelV4({
    modelId: 'review-model',
    provider: 'anthropic.messages',
    doGenerate: async (options) => {
      calls.push(options);
      const chars = JSON.stringify(options.prompt).length;
      const usage = {
        inputTokens: {
          total: Math.round(chars / 4),
          noCache: cache ? 10 : Math.round(chars / 4),
          cacheRead: cache ? Math.round(chars / 5) : undefined,
          cacheWrite: cache ? 40 : undefined,
        },
        outputTokens: { total: 30, text: 30, reasoning: undefined },
      };
      // a separate summary request (the summarizer's own prompt) is answered with the state
      const separate = JSON.stringify(options.prompt).includes('messages_to_fold');
      if (isSummaryRequest(options.prompt) || separate) {
        return {
          content: [{ type: 'text', text: separate ? JSON.stringify(STATE) : answer() }],
          finishReason: { unified: 'stop', raw: 'end_turn' },
          usage,
          warnings: [],
        };
      }
      step++;
      return {
        content:
          step > 14
            ? [{ type: 'text', text: 'Done.' }]
            : [
                {
                  type: 'tool-call',
                  toolCallId: `read-${step}`,
                  toolName: 'readFile',
                  input: `{"path":"file-${step}.ts"}`,
                },
              ],
        finishReason: step > 14 ? { unified: 'stop', raw: 'end_turn' } : { unified: 'tool-calls', raw: 'tool_use' },
        usage,
        warnings: [],
      } as never;
    },
  });
  return { model, calls };
}

async function review(
  model: MockLanguageModelV4,
  summarizer: 'self' | 'separate' | undefined,
  onCompress?: (event: CompressEvent) => void,
) {
  const reports: CompressionReport[] = [];
  const wrapped = withContextCompression(model, {
    contextWindow: 12_000,
    ...(summarizer === 'self'
      ? { summarizer: model }
      : summarizer === 'separate'
        ? { summarizer: modelSummarizer(model) }
        : {}),
    summarizeAhead: false,
    onCall: (report) => reports.push(report),
    ...(onCompress ? { onCompress } : {}),
  });
  await generateText({
    model: wrapped,
    system: 'You review code.',
    messages: [{ role: 'user', content: 'Review the repository.' }],
    tools: {
      readFile: tool({
        description: 'Reads a file',
        inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
        execute: async ({ path }) => `// ${path}\n${'export const value = compute(input, options);\n'.repeat(80)}`,
      }),
    },
    stopWhen: stepCountIs(16),
  });
  return reports;
}

describe('a summary by the wrapped model itself (AI SDK)', () => {
  it('continues the previous request byte for byte, with the instruction as the last user message', async () => {
    const { model, calls } = reviewModel();
    const events: CompressEvent[] = [];
    await review(model, 'self', (event) => events.push(event));
    const summaries = calls.filter((call) => isSummaryRequest(call.prompt));
    expect(summaries.length).toBeGreaterThan(0);
    for (const summary of summaries) {
      const index = calls.indexOf(summary);
      const before = calls[index - 1] as LanguageModelV4CallOptions;
      // the request before it, whole, then what came since that the fold takes (nothing when it folds up to the step
      // that request ended with), then the instruction
      expect(JSON.stringify(summary.prompt.slice(0, before.prompt.length))).toBe(JSON.stringify(before.prompt));
      expect(summary.tools).toEqual(before.tools);
      expect(summary.toolChoice).toEqual(before.toolChoice);
      const instruction = summary.prompt.at(-1);
      expect(instruction?.role).toBe('user');
      expect(JSON.stringify(instruction)).toMatch(/The messages to fold are every message of this conversation above/);
    }
    // the state it answered with is the one sent
    const folded = events.find((event) => event.messagesFolded > 0);
    expect(folded?.summarizerUsage).toMatchObject({ model: 'review-model' });
    const after = calls.filter((call) => !isSummaryRequest(call.prompt)).at(-1);
    expect(JSON.stringify(after?.prompt)).toContain('The review covers file-0.ts to file-9.ts.');
  });

  it('makes a separate request when the answer holds no state, and when the provider showed no prompt cache', async () => {
    const bad = reviewModel({ answer: () => 'I would rather keep reading files.' });
    await review(bad.model, 'self');
    const continued = bad.calls.filter((call) => isSummaryRequest(call.prompt));
    // the separate request: the summarizer's own instructions and the messages rendered as text
    const separate = bad.calls.filter((call) => JSON.stringify(call.prompt).includes('messages_to_fold'));
    expect(continued.length).toBeGreaterThan(0);
    expect(separate.length).toBe(continued.length);
    for (const request of continued) expect(separate).toContain(bad.calls[bad.calls.indexOf(request) + 1]);

    const uncached = reviewModel({ cache: false });
    await review(uncached.model, 'self');
    expect(uncached.calls.filter((call) => isSummaryRequest(call.prompt))).toHaveLength(0);
    expect(uncached.calls.some((call) => JSON.stringify(call.prompt).includes('messages_to_fold'))).toBe(true);
  });

  it('continues nothing for a summarizer that is another model object, or the model given to modelSummarizer', async () => {
    const { model, calls } = reviewModel();
    await review(model, 'separate');
    expect(calls.filter((call) => isSummaryRequest(call.prompt))).toHaveLength(0);
    expect(calls.some((call) => JSON.stringify(call.prompt).includes('messages_to_fold'))).toBe(true);
  });
});

describe('continuationInstruction and stateFromText', () => {
  it('names how many messages at the end stay, and whether a state is merged', () => {
    expect(continuationInstruction('Return JSON.', { keptAfter: 2, hasState: true })).toMatch(
      /except the last 2 messages[\s\S]*Return JSON\.[\s\S]*<session_state>[\s\S]*Do not write it again/,
    );
    expect(continuationInstruction('Return JSON.', { keptAfter: 1, hasState: false })).toMatch(
      /except the last message[\s\S]*no memory so far/,
    );
  });

  it('reads a state from a fenced or bare JSON answer, and nothing from prose or a wrong shape', () => {
    expect(stateFromText(`Here it is:\n\`\`\`json\n${JSON.stringify(STATE)}\n\`\`\``)).toMatchObject(STATE);
    expect(stateFromText(JSON.stringify(STATE))).toMatchObject(STATE);
    expect(stateFromText('No state today.')).toBeUndefined();
    // a change to the previous state: the entries to add and to drop, and the new summary
    const previous = { ...STATE, logos: ['The build uses pnpm.', 'The tests run on Node 18.'] };
    const change = {
      add: { logos: ['The tests run on Node 22.'] },
      drop: ['The tests run on Node 18.'],
      conversationSummary: 'Upgraded.',
    };
    expect(stateFromText(JSON.stringify(change), previous)).toMatchObject({
      logos: ['The build uses pnpm.', 'The tests run on Node 22.'],
      conversationSummary: 'Upgraded.',
    });
    // without a previous state a change is no state
    expect(stateFromText(JSON.stringify(change))).toBeUndefined();
    expect(stateFromText('{"logos": 3}')).toBeUndefined();
  });
});
