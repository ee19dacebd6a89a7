import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CompressEvent, withContextCompression } from '../../../adapters/ai-sdk/index.js';

/**
 * The request bodies the real provider packages send with compressed prompts (their `fetch` replaced by one that
 * records the body and answers as the API would): Anthropic gets cache breakpoints where the prompt stays the same
 * from call to call, within its limit of 4 and beside the caller's own; OpenAI gets none (it caches prefixes itself);
 * Gemini gets one system instruction and its reported prompt tokens calibrate the counts.
 */
type Body = Record<string, unknown> & { messages?: Array<{ role: string; content: Array<Record<string, unknown>> }> };

function recordingFetch(answer: (body: Body) => unknown) {
  const bodies: Body[] = [];
  const fetch = async (_url: unknown, init?: { body?: unknown }) => {
    const body = JSON.parse(String(init?.body)) as Body;
    bodies.push(body);
    return new Response(JSON.stringify(answer(body)), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { bodies, fetch: fetch as unknown as typeof globalThis.fetch };
}

const anthropicAnswer = () => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 1000, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
});

/** A long chat: 40 turns about deployments, long enough to fold at an 8k window. */
const chat = (turns = 40): ModelMessage[] =>
  Array.from({ length: turns }, (_, turn): ModelMessage[] => [
    {
      role: 'user',
      content: `Turn ${turn}: why did the deploy of service-${turn} fail? ${'Logs attached. '.repeat(20)}`,
    },
    {
      role: 'assistant',
      content: `Service-${turn} timed out on its health check. ${'Raise the timeout. '.repeat(20)}`,
    },
  ]).flat();

const SYSTEM = 'You are a deployment assistant.';

/** Where the body's cache_control markers are: 'system:i', 'message:i' (the message's index in the body). */
function breakpoints(body: Body): string[] {
  const found: string[] = [];
  for (const [index, block] of ((body.system as Array<Record<string, unknown>>) ?? []).entries()) {
    if (block.cache_control) found.push(`system:${index}`);
  }
  for (const [index, message] of (body.messages ?? []).entries()) {
    for (const block of message.content) if (block.cache_control) found.push(`message:${index}`);
  }
  for (const [index, definition] of ((body.tools as Array<Record<string, unknown>>) ?? []).entries()) {
    if (definition.cache_control) found.push(`tool:${index}`);
  }
  return found;
}

const textOf = (message: { content: Array<Record<string, unknown>> } | undefined) =>
  (message?.content ?? []).map((block) => String(block.text ?? '')).join('');

describe('Anthropic: cache breakpoints where the prompt stays the same', () => {
  const anthropicModel = (fetch: typeof globalThis.fetch) =>
    createAnthropic({ apiKey: 'test', fetch })('claude-sonnet-4-5');

  it('a compressed prompt: the end of the system prompt, of the state pair and of the prompt', async () => {
    const { bodies, fetch } = recordingFetch(anthropicAnswer);
    const events: CompressEvent[] = [];
    const model = withContextCompression(anthropicModel(fetch), {
      contextWindow: 8_000,
      onCompress: (event) => events.push(event),
    });
    const result = await generateText({ model, system: SYSTEM, messages: chat() });
    expect(result.text).toBe('ok');
    expect(events[0]?.messagesFolded).toBeGreaterThan(0);
    const body = bodies[0] as Body;
    const messages = body.messages ?? [];
    // the state pair leads the messages: <session_state> then the acknowledgement
    expect(textOf(messages[0])).toContain('<session_state>');
    const system = body.system as Array<Record<string, unknown>>;
    const marks = breakpoints(body);
    expect(marks).toEqual(
      expect.arrayContaining([`system:${system.length - 1}`, 'message:1', `message:${messages.length - 1}`]),
    );
    // and, with a recall block in this prompt, the message before it: four in all
    const recall = messages.findIndex((message) => textOf(message).includes('<recalled_messages>'));
    expect(marks).toHaveLength(recall > 0 ? 4 : 3);
    if (recall > 0) expect(marks).toContain(`message:${recall - 1}`);
    expect(result.warnings ?? []).toEqual([]);
  });

  it('the next call reads the whole previous prompt: its breakpoint moved to the new end, the earlier ones stayed', async () => {
    const { bodies, fetch } = recordingFetch(anthropicAnswer);
    // recall off: a chat turn's recall block leaves with the next user message (a change of the prompt by design)
    const model = withContextCompression(anthropicModel(fetch), { contextWindow: 8_000, recall: false });
    // a chat that ends with the user's message, answered, then the next one
    const history = chat().slice(0, -1);
    await generateText({ model, system: SYSTEM, messages: history });
    await generateText({
      model,
      system: SYSTEM,
      messages: [...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'Thanks, go on.' }],
    });
    const [first, second] = bodies as [Body, Body];
    const strip = (body: Body) => JSON.stringify(body.messages).replaceAll(',"cache_control":{"type":"ephemeral"}', '');
    // the second prompt extends the first (byte for byte, breakpoints aside): a cache read of all of it
    expect(strip(second).startsWith(strip(first).slice(0, -1))).toBe(true);
    expect(JSON.stringify(second.system)).toBe(JSON.stringify(first.system));
    expect(breakpoints(second).at(-1)).toBe(`message:${(second.messages?.length ?? 0) - 1}`);
  });

  it('with recall (on by default): also before the recall pair, which leaves with the next user message', async () => {
    const { bodies, fetch } = recordingFetch(anthropicAnswer);
    const model = withContextCompression(anthropicModel(fetch), { contextWindow: 8_000 });
    const history = chat().slice(0, -1);
    await generateText({ model, system: SYSTEM, messages: history });
    await generateText({
      model,
      system: SYSTEM,
      messages: [...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'Thanks, go on.' }],
    });
    const [first, second] = bodies as [Body, Body];
    const messages = first.messages ?? [];
    const recall = messages.findIndex((message) => textOf(message).includes('<recalled_messages>'));
    expect(recall).toBeGreaterThan(1);
    expect(breakpoints(first)).toContain(`message:${recall - 1}`);
    // the next call's prompt is the same up to that message: what the breakpoint wrote is read
    const strip = (message: unknown) => JSON.stringify(message).replaceAll(',"cache_control":{"type":"ephemeral"}', '');
    for (let index = 0; index < recall; index++) {
      expect(strip(second.messages?.[index])).toBe(strip(messages[index]));
    }
    expect(breakpoints(first).length).toBeLessThanOrEqual(4);
  });

  it("never more than 4 with the caller's own, which stay where the caller put them", async () => {
    const { bodies, fetch } = recordingFetch(anthropicAnswer);
    const model = withContextCompression(anthropicModel(fetch), { contextWindow: 8_000 });
    const cached = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;
    const history = chat();
    const last = history.at(-1) as ModelMessage;
    await generateText({
      model,
      system: SYSTEM,
      tools: {
        lookup: tool({
          description: 'Looks a service up',
          inputSchema: z.object({ name: z.string() }),
          providerOptions: cached,
        }),
      },
      // the caller's breakpoints: on a tool, and on the two latest messages (which stay in view)
      messages: [
        ...history.slice(0, -2),
        { ...(history.at(-2) as ModelMessage), providerOptions: cached },
        { ...last, providerOptions: cached },
      ],
    });
    const body = bodies[0] as Body;
    const marks = breakpoints(body);
    expect(marks).toHaveLength(4);
    const count = body.messages?.length ?? 0;
    expect(marks).toEqual(expect.arrayContaining(['tool:0', `message:${count - 2}`, `message:${count - 1}`]));
    // the one left went to the next place in order: before the recall pair (this prompt has one)
    const recall = (body.messages ?? []).findIndex((message) => textOf(message).includes('<recalled_messages>'));
    expect(recall).toBeGreaterThan(0);
    expect(marks).toContain(`message:${recall - 1}`);
  });

  it('a short chat (nothing folded): the end of the system prompt and of the prompt', async () => {
    const { bodies, fetch } = recordingFetch(anthropicAnswer);
    const model = withContextCompression(anthropicModel(fetch), { contextWindow: 200_000 });
    await generateText({ model, system: SYSTEM, messages: chat(2) });
    const body = bodies[0] as Body;
    const system = body.system as unknown[];
    expect(breakpoints(body)).toEqual([`system:${system.length - 1}`, `message:${(body.messages?.length ?? 0) - 1}`]);
  });

  it('cacheBreakpoints: false leaves the request without any', async () => {
    const { bodies, fetch } = recordingFetch(anthropicAnswer);
    const model = withContextCompression(anthropicModel(fetch), { contextWindow: 8_000, cacheBreakpoints: false });
    await generateText({ model, system: SYSTEM, messages: chat() });
    expect(breakpoints(bodies[0] as Body)).toEqual([]);
    expect(() => withContextCompression(anthropicModel(fetch), { cacheBreakpoints: 'yes' as never })).toThrow(
      /cacheBreakpoints.*true or false/,
    );
  });
});

describe('OpenAI: prefixes are cached by the provider, nothing added', () => {
  it('sends no cache markers', async () => {
    const { bodies, fetch } = recordingFetch(() => ({
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      model: 'gpt-4o',
      status: 'completed',
      output: [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'ok', annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 1000,
        output_tokens: 1,
        total_tokens: 1001,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    }));
    const model = withContextCompression(createOpenAI({ apiKey: 'test', fetch })('gpt-4o'), { contextWindow: 8_000 });
    const result = await generateText({ model, system: SYSTEM, messages: chat() });
    expect(result.text).toBe('ok');
    expect(JSON.stringify(bodies[0])).not.toMatch(/cache_control|cacheControl/);
  });
});

describe('Gemini: one system instruction, counts calibrated from the reported usage', () => {
  const geminiAnswer = (charactersPerToken: number) => (body: Body) => ({
    candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: Math.round(JSON.stringify(body.contents).length / charactersPerToken),
      candidatesTokenCount: 1,
      totalTokenCount: 1,
    },
  });

  it('the system prompt and the awareness block go out as one system instruction, before the contents', async () => {
    const { bodies, fetch } = recordingFetch(geminiAnswer(4));
    const model = withContextCompression(createGoogleGenerativeAI({ apiKey: 'test', fetch })('gemini-2.5-flash'), {
      contextWindow: 8_000,
    });
    const result = await generateText({ model, system: SYSTEM, messages: chat() });
    expect(result.text).toBe('ok');
    const body = bodies[0] as Body & {
      systemInstruction?: { parts: Array<{ text: string }> };
      contents: Array<{ role: string; parts: Array<{ text?: string }> }>;
    };
    const instruction = (body.systemInstruction?.parts ?? []).map((part) => part.text).join('\n');
    expect(instruction).toContain(SYSTEM);
    expect(instruction).toMatch(/session_state/);
    expect(body.contents.every((content) => content.role === 'user' || content.role === 'model')).toBe(true);
    expect(body.contents[0]?.parts[0]?.text).toContain('<session_state>');
    expect(JSON.stringify(body)).not.toMatch(/cache_control|cacheControl/);
  });

  it("a tokenizer that counts twice as many tokens as the estimate: the next calls' counts follow it", async () => {
    const tokensBefore = async (charactersPerToken: number) => {
      const { fetch } = recordingFetch(geminiAnswer(charactersPerToken));
      const events: CompressEvent[] = [];
      const model = withContextCompression(createGoogleGenerativeAI({ apiKey: 'test', fetch })('gemini-2.5-flash'), {
        contextWindow: 100_000,
        onCompress: (event) => events.push(event),
      });
      const history = chat(30);
      await generateText({ model, system: SYSTEM, messages: history });
      await generateText({
        model,
        system: SYSTEM,
        messages: [...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'And service-3?' }],
        providerOptions: { 'context-compression': { force: true } },
      });
      return events.at(-1)?.tokensBefore ?? 0;
    };
    const plain = await tokensBefore(4);
    const dense = await tokensBefore(2);
    expect(plain).toBeGreaterThan(0);
    expect(dense / plain).toBeGreaterThan(1.6);
  });
});

describe('countBreakpoints counts as the Anthropic provider does', () => {
  it('a message-level one yields to its last part; tool outputs and their parts count', async () => {
    const { countBreakpoints } = await import('../../../adapters/ai-sdk/cache-breakpoints.js');
    const cached = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    expect(
      countBreakpoints(
        [
          {
            role: 'user',
            content: [{ type: 'text', text: 'a', providerOptions: cached }],
            providerOptions: cached,
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'c',
                toolName: 't',
                output: { type: 'content', value: [{ type: 'text', text: 'x', providerOptions: cached }] },
                providerOptions: cached,
              },
            ],
          },
        ] as never,
        undefined,
      ),
    ).toBe(3);
  });
});
