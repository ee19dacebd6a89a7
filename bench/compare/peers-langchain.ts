/**
 * LangChain's own context management, driven through its public API as createAgent drives it, at the same budget as
 * every other system: summarizationMiddleware (stateful: rewrites the agent's message state), contextEditingMiddleware
 * with ClearToolUsesEdit (edits the state's message array in place, so clears persist across calls) and trimMessages
 * (stateless, the documented chat recipe). Every peer counts tokens as the harness measures prompts: the shared
 * tokenizer over the neutral transcript, with the per-message overhead of `MessageMeter`.
 *
 * Why not a real `createAgent` loop: the replayed history's assistant turns and tool results are recorded, not
 * produced, so each call must append recorded messages to the state, which an agent loop does not allow without
 * rewriting its checkpoints. Instead each run keeps the agent state itself and runs the hooks exactly as
 * `langchain/dist/agents/nodes` does: `beforeModel` with the runtime `MiddlewareNode` builds (context parsed by the
 * middleware's `contextSchema`), its update applied with LangGraph's `messagesStateReducer` (the agent state's
 * messages reducer); `wrapModelCall` with `request.messages` being the state's own array (as in `AgentNode`), and the
 * system prompt kept outside the state and prepended to what the model receives.
 */
import { AIMessage, type BaseMessage, SystemMessage, trimMessages } from '@langchain/core/messages';
import { interopParse } from '@langchain/core/utils/types';
import { messagesStateReducer } from '@langchain/langgraph';
import { ClearToolUsesEdit, contextEditingMiddleware, summarizationMiddleware } from 'langchain';
import { toTranscript } from '../../adapters/langchain/to-transcript.js';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS, MessageMeter } from '../../src/counting/message-meter.js';
import type { TokenCounter } from '../../src/counting/token-counter.js';
import type { Transcript } from '../../src/transcript/transcript.js';
import { LangChainStandIn } from './stand-in.js';
import type { History, Setup, System, SystemRun } from './types.js';

/**
 * Our library compresses at 70% of the budget down to 60%, its state included. summarizationMiddleware's `keep`
 * does not count the summary it adds (the stand-in's summary is capped at 15% of the budget), so it keeps 45%:
 * summary and kept messages land at 60% too, instead of re-triggering on the next call.
 */
const TRIGGER_SHARE = 0.7;
const KEEP_SHARE = 0.45;
/** ClearToolUsesEdit's documented default (and Anthropic's `clear_tool_uses` default): keep the 3 latest results. */
const KEEP_TOOL_RESULTS = 3;

type Messages = (messages: readonly BaseMessage[]) => number;

/**
 * Tokens of a list of messages as the harness measures a prompt: each message through `toTranscript` and the
 * shared tokenizer, 4 tokens of overhead a message, consecutive tool results grouped as one message (one overhead).
 */
export function messagesCounter(counter: TokenCounter): Messages {
  const meter = new MessageMeter(counter);
  const cache = new WeakMap<BaseMessage, { content: unknown; tokens: number }>();
  const tokensOf = (message: BaseMessage) => {
    const cached = cache.get(message);
    if (cached && cached.content === message.content) return cached.tokens;
    const { system, messages } = toTranscript([message]);
    const tokens = [...system, ...messages].reduce((sum, each) => sum + meter.measure(each).tokens, 0);
    cache.set(message, { content: message.content, tokens });
    return tokens;
  };
  return (messages) =>
    messages.reduce((sum, message, index) => {
      const grouped = index > 0 && message.getType() === 'tool' && messages[index - 1]?.getType() === 'tool';
      return sum + tokensOf(message) - (grouped ? DEFAULT_MESSAGE_OVERHEAD_TOKENS : 0);
    }, 0);
}

/** What createAgent keeps: the system prompt outside the state, and the state's messages. */
interface AgentState {
  system: SystemMessage | undefined;
  messages: BaseMessage[];
  seen: number;
}

/**
 * Appends the messages new since the last call to the state, as `agent.invoke({ messages })` on a thread does
 * (through the messages reducer). A leading SystemMessage becomes the agent's system prompt, as `systemPrompt`.
 */
function appendNew(state: AgentState, history: History, name: string): void {
  if (history.base.length < state.seen)
    throw new Error(`${name}: the history shrank (${history.base.length} < ${state.seen} messages seen)`);
  let added = history.base.slice(state.seen);
  if (state.seen === 0 && added[0] && SystemMessage.isInstance(added[0])) {
    state.system = added[0];
    added = added.slice(1);
  }
  state.seen = history.base.length;
  state.messages = messagesStateReducer(state.messages, added);
}

/** What the model receives: `AgentNode` prepends the system message unless its text is empty. */
function received(state: AgentState, messages: readonly BaseMessage[]): Transcript {
  return toTranscript(state.system && state.system.text !== '' ? [state.system, ...messages] : messages);
}

async function failing<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new Error(`${name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

type BeforeModel = (
  state: { messages: BaseMessage[] },
  runtime: unknown,
) => Promise<{ messages?: BaseMessage[] } | undefined>;
type WrapModelCall = (
  request: Record<string, unknown>,
  handler: (request: { messages: BaseMessage[] }) => Promise<AIMessage>,
) => Promise<unknown>;
interface Middleware {
  readonly contextSchema?: unknown;
  readonly beforeModel?: BeforeModel | { hook: BeforeModel };
  readonly wrapModelCall?: WrapModelCall;
}

/** The runtime `MiddlewareNode` passes a hook: the middleware's context schema parsed from an empty invoke context. */
function hookRuntime(middleware: Middleware) {
  const context = middleware.contextSchema
    ? (interopParse(middleware.contextSchema as Parameters<typeof interopParse>[0], {}) as object)
    : {};
  return Object.freeze({ context: Object.freeze({ ...context }), signal: new AbortController().signal });
}

const SUMMARIZATION = 'LangChain summarizationMiddleware';

/** A copy of an agent state: a thread's checkpoint, from which another invoke goes on independently. */
const copyState = (state: AgentState): AgentState => ({ ...state, messages: [...state.messages] });

function summarizationRun(setup: Setup, state: AgentState = { system: undefined, messages: [], seen: 0 }): SystemRun {
  const count = messagesCounter(setup.tokenCounter);
  let middleware: Middleware | undefined;
  return {
    fork: () => summarizationRun(setup, copyState(state)),
    call: (history) =>
      failing(SUMMARIZATION, async () => {
        appendNew(state, history, SUMMARIZATION);
        // the middleware counts the state's messages only: the system prompt, outside the state, is taken off the
        // thresholds so that trigger and keep bound the whole prompt, as for every other system
        const system = state.system ? count([state.system]) : 0;
        middleware ??= summarizationMiddleware({
          model: new LangChainStandIn(setup.summarizerCalls),
          trigger: { tokens: Math.max(1, Math.floor(setup.budget * TRIGGER_SHARE) - system) },
          keep: { tokens: Math.max(0, Math.floor(setup.budget * KEEP_SHARE) - system) },
          tokenCounter: (messages: BaseMessage[]) => count(messages),
        }) as unknown as Middleware;
        const hook = middleware.beforeModel;
        if (!hook) throw new Error('no beforeModel hook');
        const update = await (typeof hook === 'function' ? hook : hook.hook)(
          { messages: state.messages },
          hookRuntime(middleware),
        );
        if (update?.messages) state.messages = messagesStateReducer(state.messages, update.messages);
        return received(state, state.messages);
      }),
  };
}

const CONTEXT_EDITING = 'LangChain contextEditingMiddleware';

function contextEditingRun(setup: Setup, state: AgentState = { system: undefined, messages: [], seen: 0 }): SystemRun {
  const count = messagesCounter(setup.tokenCounter);
  const middleware = contextEditingMiddleware({
    edits: [
      new ClearToolUsesEdit({
        trigger: { tokens: Math.floor(setup.budget * TRIGGER_SHARE) },
        keep: { messages: KEEP_TOOL_RESULTS },
      }),
    ],
    tokenCountMethod: 'model',
  }) as unknown as Middleware;
  // the agent's model as `tokenCountMethod: 'model'` uses it (ChatOpenAI's getNumTokensFromMessages, tiktoken):
  // here the shared tokenizer; the middleware passes it the system prompt and the messages
  const model = {
    getName: () => 'replayed-model',
    getNumTokensFromMessages: async (messages: BaseMessage[]) => ({ totalCount: count(messages) }),
  };
  return {
    fork: () => contextEditingRun(setup, copyState(state)),
    call: (history) =>
      failing(CONTEXT_EDITING, async () => {
        appendNew(state, history, CONTEXT_EDITING);
        const wrap = middleware.wrapModelCall;
        if (!wrap) throw new Error('no wrapModelCall hook');
        let sent: readonly BaseMessage[] | undefined;
        // `request.messages` is the state's own array, as in AgentNode: the edit replaces entries of it in place,
        // so cleared results stay cleared in the agent state (verified against a real createAgent + MemorySaver)
        await wrap(
          {
            model,
            systemPrompt: state.system?.text,
            systemMessage: state.system ?? new SystemMessage(''),
            messages: state.messages,
            tools: [],
            state: { messages: state.messages },
            runtime: Object.freeze({ context: undefined }),
          },
          async (request) => {
            sent = [...request.messages];
            return new AIMessage({ content: '' });
          },
        );
        if (!sent) throw new Error('the middleware did not call the model');
        return received(state, sent);
      }),
  };
}

const TRIM = 'LangChain trimMessages';

function trimRun(setup: Setup): SystemRun {
  const count = messagesCounter(setup.tokenCounter);
  return {
    call: (history) =>
      failing(TRIM, async () => {
        // trimMessages copies every message it returns, so the shared history is never touched
        const trimmed = await trimMessages([...history.base], {
          maxTokens: setup.budget,
          strategy: 'last',
          includeSystem: true,
          startOn: 'human',
          endOn: ['human', 'tool'],
          tokenCounter: (messages: BaseMessage[]) => count(messages),
        });
        // when no human message fits (an agent trajectory with one task message, once past the budget), startOn
        // leaves nothing and @langchain/core 1.4 returns [undefined], system message lost too: a model rejects it
        if (trimmed.some((message) => message === undefined))
          throw new Error(
            `no human message fits in ${setup.budget} tokens with startOn 'human'; trimMessages returned [undefined]`,
          );
        return toTranscript(trimmed);
      }),
  };
}

/** LangChain's context management, each configured at the shared budget with the shared tokenizer. */
export function langChainPeers(): System[] {
  return [
    {
      name: SUMMARIZATION,
      config:
        "summarizationMiddleware({ model: stand-in, trigger: { tokens: 70% of budget }, keep: { tokens: 45% of budget } (so that keep + the summary land at 60%; both less the system prompt, which createAgent keeps outside the counted state), tokenCounter: shared tokenizer, trimTokensToSummarize: default 4000 }), state driven as createAgent's",
      create: summarizationRun,
    },
    {
      name: CONTEXT_EDITING,
      config: `contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 70% of budget }, keep: { messages: ${KEEP_TOOL_RESULTS} }, placeholder: '[cleared]' })], tokenCountMethod: 'model' (shared tokenizer, system prompt counted) }), clears persist in state`,
      create: contextEditingRun,
    },
    {
      name: TRIM,
      config:
        "trimMessages(history, { maxTokens: budget, strategy: 'last', includeSystem: true, startOn: 'human', endOn: ['human', 'tool'], tokenCounter: shared tokenizer }) on every call",
      create: trimRun,
    },
  ];
}
