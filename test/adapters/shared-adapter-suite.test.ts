/**
 * The same sessions, step by step, through the AI SDK adapter and the three LangChain entry points (chat model
 * wrapper, chain step, createAgent middleware), expecting the same compressed transcript on every call.
 */
import { resolve } from 'node:path';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { type BaseMessage, SystemMessage } from '@langchain/core/messages';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { withContextCompression as withAiSdkCompression } from '../../adapters/ai-sdk/index.js';
import { toTranscript as aiSdkTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import {
  compressMessages,
  contextCompressionMiddleware,
  withContextCompression as withLangChainCompression,
} from '../../adapters/langchain/index.js';
import { toTranscript as langChainTranscript } from '../../adapters/langchain/to-transcript.js';
import { recordingModel } from '../../examples/lib/replay.js';
import { toBaseMessages } from '../../examples/lib/session-base-messages.js';
import { fixturesDir, readSessions, type SessionFile, toModelMessages } from '../../examples/lib/session-file.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { DEFAULT_AWARENESS_BLOCK } from '../../src/options/prompts.js';
import { messageText, type Transcript } from '../../src/transcript/transcript.js';
import { RecordingChatModel } from '../helpers/langchain.js';

/** A prompt in a form both frameworks reach: the system text, and each message's role and text. */
interface Neutral {
  system: string;
  messages: string[];
}

function neutral(transcript: Transcript): Neutral {
  return {
    system: transcript.system.map(messageText).join('\n\n'),
    messages: transcript.messages.map((message) => `${message.role}: ${messageText(message)}`),
  };
}

/** The AI SDK prompt as the middleware shows it: the awareness block leaves the system prompt for the state. */
function awarenessInState(prompt: Neutral): Neutral {
  const suffix = `\n\n${DEFAULT_AWARENESS_BLOCK}`;
  const system =
    prompt.system === DEFAULT_AWARENESS_BLOCK
      ? ''
      : prompt.system.endsWith(suffix)
        ? prompt.system.slice(0, -suffix.length)
        : prompt.system;
  const [first, ...rest] = prompt.messages;
  const state = first?.startsWith('user: <session_state>')
    ? [`user: ${DEFAULT_AWARENESS_BLOCK}\n\n${first.slice('user: '.length)}`]
    : first === undefined
      ? []
      : [first];
  return { system, messages: [...state, ...rest] };
}

/** Model calls of a session: the index of every assistant message after the first message. */
function callEnds(session: SessionFile): number[] {
  const ends: number[] = [];
  session.messages.forEach((message, index) => {
    if (message.role === 'assistant' && index > 0) ends.push(index);
  });
  return ends;
}

interface Runs {
  aiSdk: Neutral[];
  wrapper: Neutral[];
  chain: Neutral[];
  middleware: Neutral[];
  compressions: number;
}

async function replay(session: SessionFile, options: CompressionOptions): Promise<Runs> {
  const mock = recordingModel();
  let compressions = 0;
  const aiSdkModel = withAiSdkCompression(mock, { ...options, onCompress: () => compressions++ });
  const recorder = new RecordingChatModel();
  const wrapper = withLangChainCompression(recorder, options);
  const chain = compressMessages({ ...options, model: 'replay-model' });
  const middleware = contextCompressionMiddleware(options) as unknown as {
    wrapModelCall: (request: object, handler: (request: { messages: BaseMessage[] }) => Promise<unknown>) => unknown;
  };
  const runs: Runs = { aiSdk: [], wrapper: [], chain: [], middleware: [], compressions: 0 };
  for (const end of callEnds(session)) {
    const history = { ...session, messages: session.messages.slice(0, end) };
    const { instructions, messages } = toModelMessages(history);
    await generateText({ model: aiSdkModel, instructions, messages });
    runs.aiSdk.push(neutral(aiSdkTranscript(mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt, undefined)));

    const base = toBaseMessages(history.messages).messages;
    await wrapper.invoke(base);
    runs.wrapper.push(neutral(langChainTranscript(recorder.calls.at(-1) ?? [])));
    runs.chain.push(neutral(langChainTranscript(await chain.invoke(base))));

    const hasSystem = base[0]?.getType() === 'system';
    const systemMessage = hasSystem ? (base[0] as BaseMessage) : new SystemMessage('');
    const rest = hasSystem ? base.slice(1) : base;
    let seen: BaseMessage[] = [];
    await middleware.wrapModelCall(
      { model: recorder, systemMessage, messages: rest, tools: [], runtime: {} },
      async (request) => {
        seen = request.messages;
        return undefined;
      },
    );
    runs.middleware.push(neutral(langChainTranscript(hasSystem ? [systemMessage, ...seen] : seen)));
  }
  runs.compressions = compressions;
  return runs;
}

function expectSameRuns(runs: Runs): void {
  expect(runs.aiSdk.length).toBeGreaterThan(0);
  runs.aiSdk.forEach((expected, step) => {
    expect({ step, ...runs.wrapper[step] }).toEqual({ step, ...expected });
    expect({ step, ...runs.chain[step] }).toEqual({ step, ...expected });
    expect({ step, ...runs.middleware[step] }).toEqual({ step, ...awarenessInState(expected) });
  });
}

const demo = readSessions(resolve(import.meta.dirname, '../../examples/sessions/coding-agent.jsonl'))[0] as SessionFile;

describe('both adapters compress alike', () => {
  it('the demo coding session at a 16k window: same prompt on every one of its calls', async () => {
    const runs = await replay(demo, { contextWindow: 16_000, reserveOutputTokens: 2_000 });
    expect(runs.compressions).toBeGreaterThan(2);
    expectSameRuns(runs);
  });

  it('with masking and triggers off, folding only', async () => {
    const runs = await replay(demo, {
      contextWindow: 12_000,
      reserveOutputTokens: 2_000,
      masking: false,
      triggers: { semantic: false, staleness: false },
    });
    expect(runs.compressions).toBeGreaterThan(2);
    expectSameRuns(runs);
  });
});

const dir = fixturesDir();
if (!dir) console.warn('skipping the shared adapter suite on fixtures: ../shared/fixtures is not beside this checkout');
const trajectories = dir ? readSessions(resolve(dir, 'trajectories.jsonl')) : [];
const conversations = dir ? readSessions(resolve(dir, 'conversations.jsonl')) : [];

describe.skipIf(!dir)('both adapters compress fixtures alike', () => {
  it.each(trajectories.map((session) => [session.id, session] as const))('%s at 16k', async (id, session) => {
    const runs = await replay(session, { contextWindow: 16_000, reserveOutputTokens: 2_000 });
    if (id.startsWith('mini-swe-agent')) expect(runs.compressions).toBeGreaterThan(0);
    expectSameRuns(runs);
  });

  it.each(conversations.map((session) => [session.id, session] as const))('%s at 8k', async (_id, session) => {
    const short = { ...session, messages: session.messages.slice(0, 160) };
    const runs = await replay(short, { contextWindow: 8_000, reserveOutputTokens: 1_000 });
    expect(runs.compressions).toBeGreaterThan(0);
    expectSameRuns(runs);
  });
});
