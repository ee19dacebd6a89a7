/**
 * fast-check generators of conversations and options for the property tests of both adapters. A conversation is
 * generated once as a framework-free spec (`ConversationSpec`) and rendered into an AI SDK prompt, a `ModelMessage[]`
 * history or LangChain messages by `render.ts`, so every adapter is fed the same variety. Specs hold relative sizes
 * (`weight`); rendering scales them to the case's context window, so a generated case shrinks to few, small
 * messages while still filling the same share of the budget.
 */
import fc from 'fast-check';
import { fragment, PATHS } from './fragments.js';

/** A text: fragments repeated up to `weight` units of the case's size (`weight` 0: the fragments once). */
export interface TextSpec {
  readonly pieces: readonly string[];
  readonly weight: number;
}

/** A file or image part; its bytes are made from `seed` when rendered. */
export interface FileSpec {
  readonly kind: 'image' | 'pdf' | 'text' | 'audio';
  readonly source: 'bytes' | 'base64' | 'url' | 'inline';
  readonly bytes: number;
  readonly seed: number;
  readonly filename: boolean;
}

/** Provider options a part or message may carry (cloned when rendered). */
export type ProviderOptionsSpec = Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined;

export type UserPartSpec =
  | { readonly type: 'text'; readonly text: TextSpec; readonly providerOptions: ProviderOptionsSpec }
  | { readonly type: 'file'; readonly file: FileSpec };

export type OutputSpec =
  | { readonly type: 'text' | 'error-text'; readonly text: TextSpec }
  | { readonly type: 'json'; readonly value: unknown; readonly text: TextSpec }
  | { readonly type: 'content'; readonly text: TextSpec; readonly file: FileSpec | undefined }
  | { readonly type: 'execution-denied'; readonly reason: string | undefined };

export interface CallSpec {
  readonly name: string;
  readonly input: unknown;
  readonly output: OutputSpec;
  /** A call of the redaction tool naming earlier calls (indexes into the calls made so far, modulo their count). */
  readonly redacts: readonly number[] | undefined;
  /** A provider-executed call (a web search): its result is in the assistant message, not in a tool message. */
  readonly providerExecuted: boolean;
}

/** One assistant message: reasoning, text (possibly empty beside calls) and parallel tool calls. */
export interface StepSpec {
  readonly reasoning: TextSpec | undefined;
  readonly text: TextSpec | undefined;
  readonly calls: readonly CallSpec[];
  /** Results as one tool message (AI SDK style) or one message per result. */
  readonly splitResults: boolean;
  /** Results in the reverse order of their calls (tools that finished in another order). */
  readonly reversed: boolean;
  readonly providerOptions: ProviderOptionsSpec;
}

export interface TurnSpec {
  /** A system message in the middle of the conversation, before this turn (a reminder some agents add). */
  readonly system: TextSpec | undefined;
  readonly user: readonly UserPartSpec[];
  /** Steps with calls, then at most one final step without calls. */
  readonly steps: readonly StepSpec[];
}

export interface ConversationSpec {
  readonly system: readonly TextSpec[];
  /** An assistant greeting before the first user message, as chat UIs start. */
  readonly greeting: TextSpec | undefined;
  readonly turns: readonly TurnSpec[];
  /** Tool calls the caller leaves without results as the last message (rendered only where that is allowed). */
  readonly pending: { readonly text: TextSpec | undefined; readonly calls: readonly CallSpec[] } | undefined;
  /** Share of the budget the history fills (before compression). */
  readonly fill: number;
  /** The last turn is sized like the others instead of being kept under a third of the budget. */
  readonly bigLastTurn: boolean;
  /** `per-message`: ids restart in each assistant message (`call_0`, `call_1`), as some local servers make them. */
  readonly idStyle: 'openai' | 'anthropic' | 'plain' | 'per-message';
  /** LangChain only: content as blocks rather than strings where both are possible. */
  readonly blocks: boolean;
}

/** Relative sizes: mostly small, sometimes large, rarely huge. */
const weight = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 4 }) },
  { weight: 3, arbitrary: fc.integer({ min: 5, max: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 21, max: 120 }) },
);

/** A text that may come out empty. */
export const text: fc.Arbitrary<TextSpec> = fc.record({
  pieces: fc.array(fragment, { minLength: 1, maxLength: 4 }),
  weight,
});

/** A text with at least one visible character. */
export const nonEmptyText: fc.Arbitrary<TextSpec> = fc.record({
  pieces: fc
    .array(fragment, { minLength: 1, maxLength: 4 })
    .map((pieces) => (pieces.join('').trim() === '' ? [...pieces, 'ok'] : pieces)),
  weight,
});

/** A short text, for the current turn and system prompts. */
const shortText = (max: number): fc.Arbitrary<TextSpec> =>
  fc.record({
    pieces: fc.array(fragment, { minLength: 1, maxLength: 3 }).map((pieces) => [...pieces, 'Please continue.']),
    weight: fc.integer({ min: 0, max }),
  });

const PROVIDER_OPTIONS: NonNullable<ProviderOptionsSpec>[] = [
  { anthropic: { cacheControl: { type: 'ephemeral' } } },
  { openai: { itemId: 'msg_0123456789abcdef' } },
  { openai: { itemId: 'rs_42', reasoningEncryptedContent: null } },
  { google: { thoughtSignature: 'c2lnbmF0dXJl' } },
  { custom: { note: null, nested: { list: [1, null, 'x'] } } },
];

export const providerOptions: fc.Arbitrary<ProviderOptionsSpec> = fc.option(fc.constantFrom(...PROVIDER_OPTIONS), {
  nil: undefined,
  freq: 4,
});

export const file: fc.Arbitrary<FileSpec> = fc.record({
  kind: fc.constantFrom('image', 'image', 'pdf', 'text', 'audio'),
  source: fc.constantFrom('bytes', 'base64', 'url', 'inline'),
  bytes: fc.integer({ min: 0, max: 4_096 }),
  seed: fc.nat(1_000_000),
  filename: fc.boolean(),
});

const userPart: fc.Arbitrary<UserPartSpec> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constant('text' as const), text: nonEmptyText, providerOptions }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('text' as const), text, providerOptions }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('file' as const), file }) },
);

/** A user message: at least one non-empty text or a file. */
const userParts = fc
  .array(userPart, { minLength: 1, maxLength: 3 })
  .filter((parts) => parts.some((part) => part.type === 'file' || part.text.pieces.join('').trim() !== ''));

const TOOL_NAMES = ['read_file', 'bash', 'search', 'edit_file', 'run_tests', 'lookup_order', 'web_fetch', 'ツール'];

const jsonValue = fc.jsonValue({ maxDepth: 2 });

const toolInput: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ path: fc.constantFrom(...PATHS) }) },
  { weight: 3, arbitrary: fc.record({ command: fc.constantFrom('npm test', 'ls -la', 'git status', 'cat $HOME') }) },
  { weight: 2, arbitrary: fc.record({ query: fragment, limit: fc.option(fc.nat(50), { nil: null }) }) },
  { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), jsonValue, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.constant({}) },
  // from JavaScript: a call without arguments as null
  { weight: 1, arbitrary: fc.constant(null) },
);

const output: fc.Arbitrary<OutputSpec> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constant('text' as const), text }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('error-text' as const), text: nonEmptyText }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('json' as const), value: jsonValue, text }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('content' as const),
      text,
      file: fc.option(file, { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('execution-denied' as const),
      reason: fc.option(fc.lorem({ maxCount: 6 }), { nil: undefined }),
    }),
  },
);

const call: fc.Arbitrary<CallSpec> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      name: fc.constantFrom(...TOOL_NAMES),
      input: toolInput,
      output,
      redacts: fc.constant(undefined),
      providerExecuted: fc.oneof(
        { weight: 9, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.constant('redact_tool_results'),
      input: fc.constant(undefined),
      output: fc.constant({ type: 'text' as const, text: { pieces: ['Redacted.'], weight: 0 } }),
      redacts: fc.array(fc.nat(40), { minLength: 1, maxLength: 3 }),
      providerExecuted: fc.constant(false),
    }),
  },
);

const callStep: fc.Arbitrary<StepSpec> = fc.record({
  reasoning: fc.option(text, { nil: undefined, freq: 4 }),
  text: fc.option(text, { nil: undefined, freq: 2 }),
  calls: fc.array(call, { minLength: 1, maxLength: 3 }),
  splitResults: fc.boolean(),
  reversed: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  providerOptions,
});

/** A final answer: visible text (reasoning optional). */
const finalStep: fc.Arbitrary<StepSpec> = fc.record({
  reasoning: fc.option(text, { nil: undefined, freq: 4 }),
  text: nonEmptyText.map((spec) => spec as TextSpec | undefined),
  calls: fc.constant([]),
  splitResults: fc.constant(false),
  reversed: fc.constant(false),
  providerOptions,
});

const turn: fc.Arbitrary<TurnSpec> = fc.record({
  system: fc.option(shortText(1), { nil: undefined, freq: 20 }),
  user: userParts,
  steps: fc
    .tuple(fc.array(callStep, { maxLength: 4 }), fc.option(finalStep, { nil: undefined, freq: 5 }))
    .map(([calls, final]) => (final ? [...calls, final] : calls)),
});

/** A conversation of 1 to `maxTurns` turns, system prompts, maybe a pending call. */
export function conversation({ maxTurns = 14 }: { maxTurns?: number } = {}): fc.Arbitrary<ConversationSpec> {
  return fc.record({
    system: fc.array(shortText(2), { maxLength: 2 }),
    greeting: fc.option(nonEmptyText, { nil: undefined, freq: 8 }),
    turns: fc.array(turn, { minLength: 1, maxLength: maxTurns }),
    pending: fc.option(
      fc.record({ text: fc.option(text, { nil: undefined }), calls: fc.array(call, { minLength: 1, maxLength: 2 }) }),
      { nil: undefined, freq: 6 },
    ),
    fill: fc.oneof(
      fc.double({ min: 0.05, max: 0.6, noNaN: true }),
      fc.double({ min: 0.6, max: 1.3, noNaN: true }),
      fc.double({ min: 1.3, max: 4, noNaN: true }),
    ),
    bigLastTurn: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    idStyle: fc.constantFrom('openai', 'anthropic', 'plain', 'per-message'),
    blocks: fc.boolean(),
  });
}

/** A reply of the model in a multi-step loop: text, or parallel tool calls with the results the harness returns. */
export interface ReplySpec {
  readonly text: TextSpec;
  readonly calls: readonly CallSpec[];
  /** After a text reply, the user's next message. */
  readonly nextUser: readonly UserPartSpec[];
}

export const reply: fc.Arbitrary<ReplySpec> = fc
  .record({
    text,
    visible: nonEmptyText,
    calls: fc.oneof(
      { weight: 2, arbitrary: fc.constant([]) },
      { weight: 3, arbitrary: fc.array(call, { minLength: 1, maxLength: 3 }) },
    ),
    nextUser: userParts,
  })
  // a reply without calls shows text: an empty answer is not something a model returns
  .map(({ text: said, visible, calls, nextUser }) => ({
    text: calls.length > 0 ? said : visible,
    // the harness executes the calls of a reply; provider-executed ones come with their results
    calls: (calls as CallSpec[]).map((planned) => ({ ...planned, providerExecuted: false })),
    nextUser,
  }));

/** 3 to 8 replies for a multi-step loop. */
export const replies = fc.array(reply, { minLength: 3, maxLength: 8 });

export {
  type FuzzOptions,
  options,
  pressureOptions,
  type SummarizerChoice,
  summary,
} from './option-arbitraries.js';
