import { type MessageMeasure, MessageMeter } from '../../src/counting/message-meter.js';
import { commonPrefixTokens } from '../../src/counting/prefix-tracker.js';
import type { TokenCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { resolveOptions } from '../../src/options/resolve-options.js';
import type { Message } from '../../src/transcript/transcript.js';
import { promptConversions, toTranscript } from '../ai-sdk/to-transcript.js';
import type { Conversation } from './formats.js';

/** Prices of cached tokens relative to the input price (Anthropic's published multipliers; OpenAI's are lower). */
export const CACHE_READ_PRICE = 0.1;
export const CACHE_WRITE_PRICE = 1.25;

/** One model call of a replay: the history before an assistant turn, sent raw and compressed. */
export interface ReplayCall {
  /** Index of the call in its conversation, from 1. */
  readonly call: number;
  /** Messages of the history the caller sent (system messages included). */
  readonly messages: number;
  readonly rawTokens: number;
  readonly sentTokens: number;
  /** Leading tokens the raw prompt shares with the previous raw prompt: what a prompt cache reads. */
  readonly rawCachedTokens: number;
  /** The same for the compressed prompts. */
  readonly sentCachedTokens: number;
  readonly folded: number;
  readonly dropped: number;
  readonly masked: number;
  readonly redacted: number;
  readonly recalledChunks: number;
  /** What the call did, in words; empty when it sent the history as it was. */
  readonly actions: string;
  /** Why, one line per decision (the compression event's decision details); empty when nothing changed. */
  readonly reasons: readonly string[];
}

/** The limits the calls were decided against, in tokens of the replay's counter. */
export interface ReplayLimits {
  readonly contextWindow: number;
  /** The window minus the tokens kept for the answer. */
  readonly budget: number;
  /** A prompt above this is compressed (when that pays for the cache write it causes). */
  readonly compressAt: number;
  /** What a fold aims for. */
  readonly compressTo: number;
  /** Never sent above this: the oldest turns are dropped when nothing else fits. */
  readonly hardLimit: number;
}

/** A conversation replayed: its calls and their totals. */
export interface ConversationReplay {
  readonly id: string;
  readonly format: string;
  readonly limits: ReplayLimits;
  readonly calls: readonly ReplayCall[];
  readonly rawTokens: number;
  readonly sentTokens: number;
  /** Cache-priced input cost in input-token units: cached tokens at 0.1, the others at 1.25. */
  readonly rawCost: number;
  readonly sentCost: number;
  readonly folds: number;
  readonly masked: number;
  readonly recalledChunks: number;
}

export interface ReplayOptions {
  readonly contextWindow: number;
  readonly reserveOutputTokens?: number;
  /** The counter for the figures (and the engine). @default the engine's default, gpt-tokenizer o200k_base */
  readonly tokenCounter?: TokenCounter;
  /** Further engine options (a summarizer, masking, triggers...). */
  readonly engine?: Omit<CompressionOptions, 'contextWindow' | 'reserveOutputTokens' | 'tokenCounter'>;
  /** Told after every call. */
  readonly onCall?: (call: ReplayCall) => void;
}

/**
 * Replays a conversation as an app would send it: one model call before every assistant turn, each with the whole
 * history before that turn, through one engine (its own in-memory store); the figures count the raw and the
 * compressed prompts with one counter, and what a prompt cache would read of each (the prefix shared with the
 * previous call's prompt).
 */
export async function replayConversation(
  conversation: Conversation,
  options: ReplayOptions,
): Promise<ConversationReplay> {
  const engineOptions: CompressionOptions = {
    ...options.engine,
    contextWindow: options.contextWindow,
    ...(options.reserveOutputTokens !== undefined ? { reserveOutputTokens: options.reserveOutputTokens } : {}),
    ...(options.tokenCounter ? { tokenCounter: options.tokenCounter } : {}),
  };
  const engine = new CompressionEngine(engineOptions);
  const limits = limitsOf(engineOptions, options.contextWindow);
  const meter = new MessageMeter(options.tokenCounter ?? (await defaultCounter()));
  const measure = (messages: readonly Message[]) => messages.map((message) => meter.measure(message));
  const prompt = conversation.prompt;
  const calls: ReplayCall[] = [];
  let previousRaw: MessageMeasure[] = [];
  let previousSent: MessageMeasure[] = [];
  // one conversion memory for the conversation, as the adapter keeps: each message converted once, not once per call
  const conversions = promptConversions();
  for (let end = 1; end < prompt.length; end++) {
    if (prompt[end]?.role !== 'assistant' || prompt[end - 1]?.role === 'system') continue;
    const transcript = toTranscript(prompt.slice(0, end), undefined, conversions);
    const out = await engine.compress({ transcript, modelId: 'replay' });
    const raw = measure([...transcript.system, ...transcript.messages]);
    const sent = measure([...out.system, ...out.messages]);
    const event = out.event;
    const call: ReplayCall = {
      call: calls.length + 1,
      messages: end,
      rawTokens: total(raw),
      sentTokens: total(sent),
      rawCachedTokens: commonPrefixTokens(previousRaw, raw),
      sentCachedTokens: commonPrefixTokens(previousSent, sent),
      folded: event?.messagesFolded ?? 0,
      dropped: event?.messagesDropped ?? 0,
      masked: event?.toolResultsMasked.count ?? 0,
      redacted: event?.toolResultsRedacted.count ?? 0,
      recalledChunks: event?.recalled.chunks ?? 0,
      actions: describe(event),
      reasons: event?.decisions.map((decision) => decision.details) ?? [],
    };
    previousRaw = raw;
    previousSent = sent;
    calls.push(call);
    options.onCall?.(call);
  }
  const sum = (pick: (call: ReplayCall) => number) => calls.reduce((all, call) => all + pick(call), 0);
  const cost = (tokens: number, cached: number) => cached * CACHE_READ_PRICE + (tokens - cached) * CACHE_WRITE_PRICE;
  return {
    id: conversation.id,
    format: conversation.format,
    limits,
    calls,
    rawTokens: sum((call) => call.rawTokens),
    sentTokens: sum((call) => call.sentTokens),
    rawCost: cost(
      sum((call) => call.rawTokens),
      sum((call) => call.rawCachedTokens),
    ),
    sentCost: cost(
      sum((call) => call.sentTokens),
      sum((call) => call.sentCachedTokens),
    ),
    folds: calls.filter((call) => call.folded > 0).length,
    masked: sum((call) => call.masked),
    recalledChunks: sum((call) => call.recalledChunks),
  };
}

/** The thresholds as the engine reads them from the options (no calibration: a replay sees no usage). */
function limitsOf(options: CompressionOptions, contextWindow: number): ReplayLimits {
  const resolved = resolveOptions(options);
  const budget = contextWindow - resolved.reserveFor(contextWindow);
  return {
    contextWindow,
    budget,
    compressAt: Math.round(budget * resolved.compressAt),
    compressTo: Math.round(budget * resolved.compressTo),
    hardLimit: Math.round(budget * resolved.hardLimit),
  };
}

/** The number of model calls a conversation's replay makes (for a progress bar). */
export function callsOf(conversation: Conversation): number {
  const prompt = conversation.prompt;
  return prompt.filter(
    (message, index) => index > 0 && message.role === 'assistant' && prompt[index - 1]?.role !== 'system',
  ).length;
}

async function defaultCounter(): Promise<TokenCounter> {
  const { gptTokenizerCounter } = await import('../../src/counting/gpt-tokenizer-counter.js');
  const counter = gptTokenizerCounter();
  await counter.load?.();
  return counter;
}

function total(measures: readonly MessageMeasure[]): number {
  return measures.reduce((sum, measure) => sum + measure.tokens, 0);
}

function describe(event: Awaited<ReturnType<CompressionEngine['compress']>>['event']): string {
  if (!event) return '';
  const parts: string[] = [];
  if (event.messagesFolded > 0) parts.push(`folded ${event.messagesFolded} messages`);
  if (event.messagesDropped > 0) parts.push(`dropped ${event.messagesDropped} messages`);
  if (event.toolResultsMasked.count > 0) parts.push(`masked ${event.toolResultsMasked.count} tool results`);
  if (event.toolResultsRedacted.count > 0) parts.push(`redacted ${event.toolResultsRedacted.count} tool results`);
  if (event.toolResultsTruncated > 0) parts.push(`shortened ${event.toolResultsTruncated} tool results`);
  if (event.recalled.chunks > 0) parts.push(`recalled ${event.recalled.chunks} pieces`);
  return parts.length > 0 ? `${event.trigger}: ${parts.join(', ')}` : '';
}
