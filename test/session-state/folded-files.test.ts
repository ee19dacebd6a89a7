import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { withContextCompression } from '../../adapters/ai-sdk/index.js';
import { withContextCompression as withLangChainCompression } from '../../adapters/langchain/index.js';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { fitState } from '../../src/session-state/fit-state.js';
import { fitNewest } from '../../src/session-state/folded-calls.js';
import { foldedFileEntries, nextFiles } from '../../src/session-state/folded-files.js';
import { renderSessionState } from '../../src/session-state/render-session-state.js';
import { EMPTY_SESSION_STATE, SummarizerOutputSchema } from '../../src/session-state/session-state.js';
import type { Message } from '../../src/transcript/transcript.js';
import { chat, setup } from '../helpers/fixtures.js';
import { RecordingChatModel } from '../helpers/langchain.js';
import { textResult } from '../helpers/mock-model.js';

const meter = new MessageMeter(approximateCounter());

/** Ninety exchanges on other topics: enough to fold what came before them at a 12k window. */
const otherTopics = (): ModelMessage[] =>
  Array.from({ length: 90 }, (_, index): ModelMessage[] => [
    { role: 'user', content: `Topic ${index}: ${'planning budget staffing '.repeat(12)}` },
    { role: 'assistant', content: `Noted topic ${index}. ${'we agreed on next steps '.repeat(8)}` },
  ]).flat();

/** The same exchanges as LangChain messages. */
const otherTopicMessages = () =>
  otherTopics().map((message) =>
    message.role === 'user' ? new HumanMessage(String(message.content)) : new AIMessage(String(message.content)),
  );

/** The prompt an AI SDK model received for `messages` through the middleware at a 12k window, and its recall message. */
async function sentByAiSdk(messages: ModelMessage[]) {
  let prompt: LanguageModelV4Prompt = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompt = options.prompt;
      return textResult('ok');
    },
  });
  await generateText({ model: withContextCompression(model, { contextWindow: 12_000 }), messages });
  const recall = prompt.find(
    (message) =>
      message.role === 'user' &&
      Array.isArray(message.content) &&
      message.content.some((part) => part.type === 'text' && part.text.includes('<recalled_messages>')),
  );
  return { prompt, recall };
}

/** The last prompt a LangChain model received, and its recall message. */
function sentByLangChain(model: RecordingChatModel) {
  const sent = model.calls.at(-1) ?? [];
  const recall = sent.find(
    (message) => HumanMessage.isInstance(message) && JSON.stringify(message.content).includes('<recalled_messages>'),
  );
  return { sent, recall };
}

const photo: Message = {
  role: 'user',
  parts: [
    { type: 'text', text: 'Here is the whiteboard from the meeting.' },
    { type: 'file', mediaType: 'image/png', fingerprint: 'png:1', tokens: 1_600, name: 'whiteboard.png' },
  ],
};

describe('folded files', () => {
  it('names each file of a folded span: where, who sent it, its kind, its name and size', () => {
    const pdf: Message = {
      role: 'user',
      parts: [{ type: 'file', mediaType: 'application/pdf', fingerprint: 'pdf:1', tokens: 9_000 }],
    };
    expect(foldedFileEntries([chat(1)[0] as Message, photo, pdf], 10)).toEqual([
      '#12 user: image/png "whiteboard.png", about 1,600 tokens',
      '#13 user: application/pdf, about 9,000 tokens',
    ]);
    expect(nextFiles(['#2 user: image/jpeg'], [photo], 4)).toEqual([
      '#2 user: image/jpeg',
      '#5 user: image/png "whiteboard.png", about 1,600 tokens',
    ]);
    expect(nextFiles(undefined, chat(3), 0)).toBeUndefined();
  });

  it('keeps the newest entries within their share, and the state renders them', () => {
    const files = Array.from({ length: 50 }, (_, index) => `#${index + 1} user: image/png "p${index}.png"`);
    const fitted = fitNewest(files, 100, meter);
    expect(fitted.length).toBeLessThan(50);
    expect(fitted.at(-1)).toBe(files.at(-1));
    const state = fitState({ ...EMPTY_SESSION_STATE, files, logos: ['user: a'] }, 300, meter);
    expect(renderSessionState(state)).toContain('"files"');
    expect(Object.keys(SummarizerOutputSchema.shape)).not.toContain('files');
  });

  it('lists a folded image in the state the engine sends, unseen by the summarizer', async () => {
    const { run, summarize } = setup();
    const out = await run([photo, ...chat(80)]);
    expect(summarize).toHaveBeenCalled();
    const state = out.messages.find((message) => message.synthetic === 'session-state');
    const text = state?.parts[0]?.type === 'text' ? state.parts[0].text : '';
    expect(text).toContain('#1 user: image/png \\"whiteboard.png\\", about 1,600 tokens');
    for (const [input] of summarize.mock.calls) expect(input.previous?.files).toBeUndefined();
  });

  it('reads the file name an AI SDK file part carries', async () => {
    let sent = '';
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        sent = JSON.stringify(prompt);
        return textResult('ok');
      },
    });
    const image = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
    await generateText({
      model: withContextCompression(model, { contextWindow: 4_000 }),
      providerOptions: { 'context-compression': { force: true } },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'The diagram.' },
            { type: 'file', mediaType: 'image/png', data: image, filename: 'diagram.png' },
          ],
        },
        { role: 'assistant', content: 'A box and an arrow.' },
        { role: 'user', content: 'What did it show?' },
      ],
    });
    // the forced fold took the image out of the prompt; the state names it
    expect(sent).toMatch(/#1 user: image\/png .{1,6}diagram\.png/);
  });
});

describe('a folded file brought back by recall', () => {
  // a PNG's signature and header: 64 x 64 pixels, a few dozen tokens for any provider
  const image = new Uint8Array([
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 64, 0, 0, 0, 64, 8, 6, 0, 0, 0,
  ]);
  const history = (question: string): ModelMessage[] => [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Here is the whiteboard photo from the retro meeting.' },
        { type: 'file', mediaType: 'image/png', data: image, filename: 'whiteboard.png' },
      ],
    },
    { role: 'assistant', content: 'Got it, the retro board.' },
    ...otherTopics(),
    { role: 'user', content: question },
  ];

  const sentFor = (question: string) => sentByAiSdk(history(question));

  it('sends the image again in the recall block when the question refers to it', async () => {
    const { prompt, recall } = await sentFor('What was on the whiteboard photo from the retro meeting?');
    // folded: the image is no longer where it was
    expect(prompt[1]?.role).toBe('user');
    expect(JSON.stringify(prompt[1])).toContain('session_state');
    expect(recall).toBeDefined();
    const files = Array.isArray(recall?.content) ? recall.content.filter((part) => part.type === 'file') : [];
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ mediaType: 'image/png', filename: 'whiteboard.png' });
  });

  it('quotes only the text when the question does not refer to a file', async () => {
    const { recall } = await sentFor('Remind me what the retro meeting was about?');
    expect(recall).toBeDefined();
    const files = Array.isArray(recall?.content) ? recall.content.filter((part) => part.type === 'file') : [];
    expect(files).toHaveLength(0);
  });
});

describe('a folded file brought back by recall, in LangChain', () => {
  it("sends the caller's image block again in the recall message when the question refers to it", async () => {
    const png = Buffer.from([
      137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 64, 0, 0, 0, 64, 8, 6, 0, 0, 0,
    ]).toString('base64');
    const block = { type: 'image', mimeType: 'image/png', data: png, metadata: { filename: 'whiteboard.png' } };
    const model = new RecordingChatModel({ model: 'claude-sonnet-4-5' });
    const wrapped = withLangChainCompression(model, { contextWindow: 12_000 });
    await wrapped.invoke([
      new HumanMessage({
        content: [{ type: 'text', text: 'Here is the whiteboard photo from the retro meeting.' }, block],
      }),
      new AIMessage('Got it, the retro board.'),
      ...otherTopicMessages(),
      new HumanMessage('What was on the whiteboard photo from the retro meeting?'),
    ]);
    const { sent, recall } = sentByLangChain(model);
    expect(Array.isArray(recall?.content) && recall.content).toContainEqual(block);
    expect(JSON.stringify(sent)).toMatch(/#1 user: image\/png .{1,8}whiteboard\.png/);
  });
});

describe('the files of a tool result', () => {
  // a PNG's signature and header: 64 x 64 pixels
  const png = new Uint8Array([
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 64, 0, 0, 0, 64, 8, 6, 0, 0, 0,
  ]);
  const screenshot = (data: Uint8Array, filename = 'login-page.png'): ModelMessage => ({
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'shot-1',
        toolName: 'screenshot',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'Captured the login page of the staging site.' },
            { type: 'file', data: { type: 'data', data }, mediaType: 'image/png', filename },
          ],
        },
      },
    ],
  });
  const opening: ModelMessage[] = [
    { role: 'user', content: 'Take a screenshot of the staging site.' },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'shot-1', toolName: 'screenshot', input: { url: 'staging' } }],
    },
  ];

  it('are counted as their provider counts them and hashed with the result, and leave with a replaced output', async () => {
    const { toTranscript } = await import('../../adapters/ai-sdk/to-transcript.js');
    const read = (message: ModelMessage) =>
      toTranscript([message] as unknown as LanguageModelV4Prompt, undefined).messages[0] as Message;
    const result = read(screenshot(png));
    const part = result.parts[0];
    expect(part?.type === 'tool-result' && part.files?.map((file) => [file.mediaType, file.name])).toEqual([
      ['image/png', 'login-page.png'],
    ]);
    const fileTokens = part?.type === 'tool-result' ? (part.files?.[0]?.tokens ?? 0) : 0;
    expect(fileTokens).toBeGreaterThan(0);
    const text = part?.type === 'tool-result' ? part.output : '';
    const alone = meter.measure({ role: 'tool', parts: [{ ...(part as object), files: undefined } as never] });
    expect(meter.measure(result).tokens).toBe(alone.tokens + fileTokens);
    expect(text).toContain('[file]');
    // another image, the same text: another result
    const other = read(screenshot(new Uint8Array([...png.slice(0, 20), 1, 0, 0, 0, 64, 8, 6, 0, 0, 0])));
    expect(meter.hash(other)).not.toBe(meter.hash(result));
    // once the engine replaced the output (masked, redacted), its files are gone from the count
    const edited: Message = {
      role: 'tool',
      parts: [{ ...(part as object), edited: true, output: '[masked]' } as never],
    };
    expect(meter.measure(edited).tokens).toBeLessThan(20);
  });

  it('are named in the state once folded, and come back in the recall block when a message refers to them', async () => {
    const { prompt, recall } = await sentByAiSdk([
      ...opening,
      screenshot(png),
      { role: 'assistant', content: 'The staging site shows its login form.' },
      ...otherTopics(),
      { role: 'user', content: 'Which fields did the login page screenshot of the staging site show?' },
    ]);
    expect(JSON.stringify(prompt)).toMatch(/#3 tool screenshot: image\/png .{1,6}login-page\.png/);
    const files = Array.isArray(recall?.content) ? recall.content.filter((part) => part.type === 'file') : [];
    expect(files).toEqual([
      { type: 'file', data: { type: 'data', data: png }, mediaType: 'image/png', filename: 'login-page.png' },
    ]);
  });

  it('come back in LangChain as the blocks the tool message held', async () => {
    const data = Buffer.from(png).toString('base64');
    const block = { type: 'image', mimeType: 'image/png', data, metadata: { filename: 'login-page.png' } };
    const model = new RecordingChatModel({ model: 'claude-sonnet-4-5' });
    const wrapped = withLangChainCompression(model, { contextWindow: 12_000 });
    await wrapped.invoke([
      new HumanMessage('Take a screenshot of the staging site.'),
      new AIMessage({ content: '', tool_calls: [{ id: 'shot-1', name: 'screenshot', args: { url: 'staging' } }] }),
      new ToolMessage({
        tool_call_id: 'shot-1',
        content: [{ type: 'text', text: 'Captured the login page of the staging site.' }, block],
      }),
      new AIMessage('The staging site shows its login form.'),
      ...otherTopicMessages(),
      new HumanMessage('Which fields did the login page screenshot of the staging site show?'),
    ]);
    const { sent, recall } = sentByLangChain(model);
    expect(Array.isArray(recall?.content) && recall.content).toContainEqual(block);
    expect(JSON.stringify(sent)).toMatch(/#3 tool screenshot: image\/png .{1,8}login-page\.png/);
  });
});
