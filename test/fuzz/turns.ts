/**
 * The intermediate form of a generated conversation: its specs (`arbitraries.ts`) sized for the case's window, texts,
 * bytes and tool call ids resolved, as `Turn` messages that `render.ts` emits per framework.
 */
import type { TokenCounter } from '../../src/index.js';
import type {
  CallSpec,
  ConversationSpec,
  FileSpec,
  OutputSpec,
  ProviderOptionsSpec,
  ReplySpec,
  StepSpec,
  TextSpec,
  TurnSpec,
  UserPartSpec,
} from './arbitraries.js';

/** Longest single text a case renders, in characters. */
export const MAX_TEXT_CHARS = 60_000;

export type Output =
  | { readonly type: 'text' | 'error-text'; readonly value: string }
  | { readonly type: 'json'; readonly value: unknown }
  | { readonly type: 'content'; readonly text: string; readonly file: FileSpec | undefined }
  | { readonly type: 'execution-denied'; readonly reason: string | undefined };

export type Part =
  | { readonly kind: 'text'; readonly text: string; readonly providerOptions: ProviderOptionsSpec }
  | { readonly kind: 'reasoning'; readonly text: string }
  | { readonly kind: 'file'; readonly file: FileSpec }
  | {
      readonly kind: 'call';
      readonly id: string;
      readonly name: string;
      readonly input: unknown;
      readonly providerExecuted: boolean;
    }
  | { readonly kind: 'result'; readonly id: string; readonly name: string; readonly output: Output };

/** One message in the intermediate form. */
export interface Turn {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly parts: readonly Part[];
  readonly providerOptions: ProviderOptionsSpec;
}

export const clone = <T>(value: T): T => (value === undefined ? value : structuredClone(value));

/** Sizes of a case: tokens per unit of `TextSpec.weight`, for the history and for its last turn. */
export interface Sizing {
  readonly unit: number;
  /** Tokens per weight unit of a system prompt: a few percent of the budget at most. */
  readonly systemUnit: number;
  readonly lastUnit: number;
  readonly counter: TokenCounter;
}

const weightOf = (spec: TextSpec | undefined) => spec?.weight ?? 0;

function outputWeight(output: OutputSpec): number {
  return output.type === 'execution-denied' ? 0 : weightOf(output.text);
}

function stepWeight(step: StepSpec): number {
  return (
    weightOf(step.reasoning) +
    weightOf(step.text) +
    step.calls.reduce((sum, call) => sum + outputWeight(call.output), 0)
  );
}

function turnWeight(turn: TurnSpec): number {
  const user = turn.user.reduce((sum, part) => sum + (part.type === 'text' ? part.text.weight : 0), 0);
  return user + turn.steps.reduce((sum, step) => sum + stepWeight(step), 0);
}

/** The budget a window leaves, as the library computes it by default. */
export function budgetOf(contextWindow: number, reserveOutputTokens: number | undefined): number {
  return contextWindow - (reserveOutputTokens ?? Math.min(4_096, contextWindow / 4));
}

/**
 * Scales a conversation to fill `spec.fill` of the budget, the last turn kept under a third of it unless
 * `bigLastTurn`; the whole history is held under `maxTotalTokens` so large windows stay fast to run.
 */
export function sizing(
  spec: ConversationSpec,
  budget: number,
  counter: TokenCounter,
  maxTotalTokens = 400_000,
): Sizing {
  const last = spec.turns.at(-1);
  const total = Math.max(
    1,
    spec.turns.reduce((sum, turn) => sum + turnWeight(turn), 0),
  );
  const target = Math.min(spec.fill * budget, maxTotalTokens);
  const unit = target / total;
  const lastWeight = last ? Math.max(1, turnWeight(last)) : 1;
  const lastUnit = spec.bigLastTurn ? unit : Math.min(unit, budget / 3 / lastWeight);
  return { unit, lastUnit, systemUnit: Math.min(budget * 0.02, 2_000), counter };
}

const cycles = new Map<string, number>();

/** A text of `spec.weight * unit` tokens: its fragments repeated, never cut inside a character. */
export function renderText(spec: TextSpec, unit: number, counter: TokenCounter): string {
  const joined = spec.pieces.join(' ');
  if (spec.weight === 0) return joined;
  const cycle = joined.trim() === '' ? `${joined}filler ` : `${joined} `;
  const key = `${counter.name}\u0000${cycle}`;
  let tokens = cycles.get(key);
  if (tokens === undefined) {
    tokens = Math.max(1, counter.count(cycle));
    if (cycles.size > 10_000) cycles.clear();
    cycles.set(key, tokens);
  }
  const wanted = Math.ceil((spec.weight * unit) / tokens);
  const fits = Math.max(1, Math.floor(MAX_TEXT_CHARS / cycle.length));
  return cycle.repeat(Math.max(1, Math.min(wanted, fits)));
}

/** Deterministic bytes of a file spec. */
export function bytesOf(file: FileSpec): Uint8Array {
  const bytes = new Uint8Array(file.bytes);
  let state = file.seed * 2_654_435_761 + 1;
  for (let index = 0; index < bytes.length; index++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    bytes[index] = state >>> 24;
  }
  return bytes;
}

export const MEDIA_TYPES = {
  image: 'image/png',
  pdf: 'application/pdf',
  text: 'text/plain',
  audio: 'audio/wav',
} as const;

export const base64Of = (file: FileSpec) => Buffer.from(bytesOf(file)).toString('base64');
export const urlOf = (file: FileSpec) => `https://example.com/files/${file.seed}.${file.kind}`;

/** Builds the intermediate messages of a conversation, allotting unique tool call ids. */
export class TurnBuilder {
  private next = 0;
  /** Ids of the calls made so far, in order. */
  readonly callIds: string[] = [];

  constructor(
    private readonly spec: Pick<ConversationSpec, 'idStyle'>,
    private readonly size: Sizing,
  ) {}

  private id(indexInMessage: number): string {
    if (this.spec.idStyle === 'per-message') return `call_${indexInMessage}`;
    const serial = this.next++;
    if (this.spec.idStyle === 'openai') return `call_${serial.toString(36)}Xy${(serial * 7919).toString(36)}`;
    if (this.spec.idStyle === 'anthropic') return `toolu_01${(serial * 104_729).toString(36).padStart(8, 'A')}`;
    return String(serial);
  }

  text(spec: TextSpec, unit = this.size.unit): string {
    return renderText(spec, unit, this.size.counter);
  }

  private output(output: OutputSpec, unit: number): Output {
    switch (output.type) {
      case 'text':
      case 'error-text':
        return { type: output.type, value: this.text(output.text, unit) };
      case 'json':
        return {
          type: 'json',
          value: output.text.weight === 0 ? output.value : { data: output.value, log: this.text(output.text, unit) },
        };
      case 'content':
        return { type: 'content', text: this.text(output.text, unit), file: output.file };
      case 'execution-denied':
        return { type: 'execution-denied', reason: output.reason };
    }
  }

  /** The input of a call: a redaction names earlier calls. */
  private input(call: CallSpec): unknown {
    if (!call.redacts) return clone(call.input);
    const ids = call.redacts.map((index) =>
      this.callIds.length > 0 ? (this.callIds[index % this.callIds.length] as string) : 'call_unknown',
    );
    return { toolCallIds: ids, reason: 'These results are no longer needed.' };
  }

  system(spec: TextSpec): Turn {
    return {
      role: 'system',
      parts: [{ kind: 'text', text: this.text(spec, this.size.systemUnit), providerOptions: undefined }],
      providerOptions: undefined,
    };
  }

  user(parts: readonly UserPartSpec[], unit = this.size.unit): Turn {
    return {
      role: 'user',
      parts: parts.map((part) =>
        part.type === 'file'
          ? { kind: 'file', file: part.file }
          : { kind: 'text', text: this.text(part.text, unit), providerOptions: clone(part.providerOptions) },
      ),
      providerOptions: undefined,
    };
  }

  /** An assistant message and the tool messages with its results. */
  step(step: StepSpec, unit = this.size.unit, withResults = true): Turn[] {
    const made = step.calls.map((call, index) => ({ call, id: this.id(index), input: this.input(call) }));
    const parts: Part[] = [];
    if (step.reasoning) parts.push({ kind: 'reasoning', text: this.text(step.reasoning, unit) });
    if (step.text) parts.push({ kind: 'text', text: this.text(step.text, unit), providerOptions: undefined });
    for (const { call, id, input } of made) {
      parts.push({ kind: 'call', id, name: call.name, input, providerExecuted: call.providerExecuted });
      // a provider-executed call has its result right after it, in the assistant message
      if (call.providerExecuted && withResults)
        parts.push({ kind: 'result', id, name: call.name, output: this.output(call.output, unit) });
    }
    for (const { id } of made) this.callIds.push(id);
    const assistant: Turn = { role: 'assistant', parts, providerOptions: clone(step.providerOptions) };
    const pending = made.filter(({ call }) => !call.providerExecuted);
    if (!withResults || pending.length === 0) return [assistant];
    const ordered = step.reversed ? [...pending].reverse() : pending;
    const results: Part[] = ordered.map(({ call, id }) => ({
      kind: 'result',
      id,
      name: call.name,
      output: this.output(call.output, unit),
    }));
    const tools: Turn[] = step.splitResults
      ? results.map((part) => ({ role: 'tool', parts: [part], providerOptions: undefined }))
      : [{ role: 'tool', parts: results, providerOptions: undefined }];
    return [assistant, ...tools];
  }

  turn(turn: TurnSpec, unit = this.size.unit): Turn[] {
    return [
      ...(turn.system ? [this.system(turn.system)] : []),
      this.user(turn.user, unit),
      ...turn.steps.flatMap((step) => this.step(step, unit)),
    ];
  }

  /** An assistant message of text only. */
  say(text: TextSpec): Turn {
    return {
      role: 'assistant',
      parts: [{ kind: 'text', text: this.text(text), providerOptions: undefined }],
      providerOptions: undefined,
    };
  }

  /** A model reply of a loop as a step (its results included). */
  reply(reply: ReplySpec): Turn[] {
    return this.step(
      {
        reasoning: undefined,
        text: reply.text,
        calls: reply.calls,
        splitResults: false,
        reversed: false,
        providerOptions: undefined,
      },
      this.size.lastUnit,
    );
  }
}

/** The whole conversation: system prompts, turns, and the pending call when `pending` allows it. */
export function conversationTurns(
  spec: ConversationSpec,
  size: Sizing,
  { pending }: { pending: boolean },
  builder = new TurnBuilder(spec, size),
): Turn[] {
  const out: Turn[] = spec.system.map((system) => builder.system(system));
  if (spec.greeting) out.push(builder.say(spec.greeting));
  spec.turns.forEach((turn, index) => {
    out.push(...builder.turn(turn, index === spec.turns.length - 1 ? size.lastUnit : size.unit));
  });
  if (pending && spec.pending && out.at(-1)?.role !== 'assistant') {
    const { text, calls } = spec.pending;
    const step = {
      reasoning: undefined,
      text,
      calls,
      splitResults: false,
      reversed: false,
      providerOptions: undefined,
    };
    out.push(...builder.step(step, size.lastUnit, false));
  }
  return out;
}
