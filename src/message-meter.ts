import { hashString } from './hash.js';
import type { TokenCounter } from './token-counter.js';
import { type Message, type Part, stableStringify } from './transcript.js';

/** Tokens a provider adds around each message (role markers, separators), as in OpenAI's published counts. */
export const DEFAULT_MESSAGE_OVERHEAD_TOKENS = 4;

/** Hash and token count of one message. */
export interface MessageMeasure {
  readonly hash: string;
  readonly tokens: number;
}

function partFingerprint(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'other':
      return `${part.type}\u0001${part.text}`;
    case 'file':
      return `file\u0001${part.mediaType}\u0001${part.fingerprint}`;
    case 'tool-call':
      return `call\u0001${part.id}\u0001${part.name}\u0001${stableStringify(part.args)}`;
    case 'tool-result':
      return `result\u0001${part.callId}\u0001${part.name}\u0001${part.isError ? 1 : 0}\u0001${part.output}`;
  }
}

function partTokenText(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'other':
      return part.text;
    case 'file':
      return '';
    case 'tool-call':
      return `${part.name} ${stableStringify(part.args)}`;
    case 'tool-result':
      return part.output;
  }
}

/**
 * Hashes and counts messages, memoizing counts by content hash so a call that adds one message tokenizes one
 * message. Hashing still reads every message (a fast linear pass); tokenizing, the slow part, happens once per
 * distinct content. Bounded: the least recently used entries are forgotten first.
 */
export class MessageMeter {
  private readonly counts = new Map<string, number>();
  private readonly byObject = new WeakMap<object, MessageMeasure>();

  constructor(
    readonly counter: TokenCounter,
    private readonly overheadTokens = DEFAULT_MESSAGE_OVERHEAD_TOKENS,
    private readonly maxEntries = 50_000,
  ) {}

  /** Hash and tokens of a message. Messages are immutable, so the result is also cached per object. */
  measure(message: Message): MessageMeasure {
    const cached = this.byObject.get(message);
    if (cached) return cached;
    let fingerprint = message.role;
    for (const part of message.parts) fingerprint += `\u0000${partFingerprint(part)}`;
    const hash = hashString(fingerprint);
    let tokens = this.recall(hash);
    if (tokens === undefined) {
      tokens = this.overheadTokens;
      for (const part of message.parts) {
        tokens += part.type === 'file' ? part.tokens : this.counter.count(partTokenText(part));
      }
      this.remember(hash, tokens);
    }
    const measure = { hash, tokens };
    this.byObject.set(message, measure);
    return measure;
  }

  /** Tokens of a free text (system prompt, tool definitions), memoized by hash. */
  countText(text: string): number {
    if (text.length === 0) return 0;
    const hash = `t:${hashString(text)}`;
    let tokens = this.recall(hash);
    if (tokens === undefined) {
      tokens = this.counter.count(text);
      this.remember(hash, tokens);
    }
    return tokens;
  }

  private recall(hash: string): number | undefined {
    const tokens = this.counts.get(hash);
    if (tokens !== undefined) {
      this.counts.delete(hash);
      this.counts.set(hash, tokens);
    }
    return tokens;
  }

  private remember(hash: string, tokens: number): void {
    this.counts.set(hash, tokens);
    if (this.counts.size > this.maxEntries) {
      const oldest = this.counts.keys().next().value;
      if (oldest !== undefined) this.counts.delete(oldest);
    }
  }
}
