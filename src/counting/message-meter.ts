import { LRUCache } from 'lru-cache';
import { boundedCache } from '../bounded-cache.js';
import { type Message, type Part, partText, stableStringify } from '../transcript/transcript.js';
import { hash53, hashChain } from './hash.js';
import type { TokenCounter } from './token-counter.js';

/** Tokens a provider adds around each message (role markers, separators), as in OpenAI's published counts. */
export const DEFAULT_MESSAGE_OVERHEAD_TOKENS = 4;

/** Hash and token count of one message. */
export interface MessageMeasure {
  /** A 53-bit content hash. */
  readonly hash: number;
  readonly tokens: number;
}

/** Free texts and messages share one count memo; a free text's key is its hash moved to another range. */
const hashOfText = (hash: number) => -1 - hash;

/** Seeds that keep equal texts in different roles and part types apart. */
const ROLE_SEEDS = {
  system: hash53('role:system'),
  user: hash53('role:user'),
  assistant: hash53('role:assistant'),
  tool: hash53('role:tool'),
};
const PART_SEEDS = { text: hash53('part:text'), reasoning: hash53('part:reasoning'), other: hash53('part:other') };

/** Texts shorter than this are hashed directly; longer ones go through the per-text memo. */
const MEMO_MIN_CHARS = 256;

/**
 * Hashes and counts messages, memoizing counts by content hash so a call that adds one message tokenizes one
 * message. Hashing still reads every message (a fast linear pass); tokenizing, the slow part, happens once per
 * distinct content. Bounded: the least recently used entries are forgotten first.
 */
export class MessageMeter {
  /** Token counts by content hash. */
  private readonly counts: LRUCache<number, number>;
  private readonly byObject = new WeakMap<object, MessageMeasure>();
  /** Byte bounds of messages not counted yet, by content hash: a resent long message is not read again. */
  private readonly bounds = boundedCache<number, number>(50_000);
  /** Hashes of messages not counted yet. */
  private readonly hashes = new WeakMap<object, number>();
  /** Hashes of long texts by the text itself, bounded by their total characters. */
  private readonly textHashes: LRUCache<string, number>;
  private readonly argsHashes = new WeakMap<object, number>();

  constructor(
    readonly counter: TokenCounter,
    private readonly overheadTokens = DEFAULT_MESSAGE_OVERHEAD_TOKENS,
    maxEntries = 50_000,
    maxMemoChars = 8_000_000,
  ) {
    this.counts = boundedCache(maxEntries);
    // bounded by characters alone: every text kept is at least MEMO_MIN_CHARS long, so it holds at most
    // maxMemoChars / MEMO_MIN_CHARS of them (no slot allocated up front, see `boundedCache`)
    this.textHashes = new LRUCache({
      maxSize: maxMemoChars,
      sizeCalculation: (_hash, text) => Math.max(1, text.length),
    });
  }

  /** Hash and tokens of a message. Messages are immutable, so the result is also cached per object. */
  measure(message: Message): MessageMeasure {
    const cached = this.byObject.get(message);
    if (cached) return cached;
    const hash = this.hash(message);
    const key = countKey(hash, message);
    let tokens = this.cached(key);
    if (tokens === undefined) {
      tokens = this.overheadTokens;
      for (const part of message.parts) {
        const text = part.type === 'file' ? '' : partText(part);
        // long parts go through the text memo, so a later count of the same text (a result being cut) is free
        tokens +=
          part.type === 'file'
            ? part.tokens
            : (text.length >= MEMO_MIN_CHARS ? this.countText(text) : this.counter.count(text)) +
              resultFileTokens(part);
      }
      this.remember(key, tokens);
    }
    const measure = { hash, tokens };
    this.byObject.set(message, measure);
    return measure;
  }

  /** The content hash of a message, without counting it; cached per object. */
  hash(message: Message): number {
    const measured = this.byObject.get(message);
    if (measured) return measured.hash;
    let hash = this.hashes.get(message);
    if (hash === undefined) {
      // hashes are chained as numbers: no fingerprint string is built for the (often large) message
      hash = ROLE_SEEDS[message.role];
      for (const part of message.parts) hash = hashChain(hash, this.partHash(part));
      this.hashes.set(message, hash);
    }
    return hash;
  }

  /** Whether `bound` can bound a message without counting it: the counter never counts more than a text's bytes. */
  get bounded(): boolean {
    return this.counter.bytesBound === true;
  }

  /**
   * At least the tokens `measure` gives a message, without tokenizing it: its count when known (this object or one
   * of the same content was measured), else the UTF-8 length of its texts (an upper bound of any byte-level BPE count). Meaningful only when `bounded`.
   */
  bound(message: Message): number {
    const measured = this.byObject.get(message);
    if (measured) return measured.tokens;
    const key = countKey(this.hash(message), message);
    const known = this.cached(key) ?? this.bounds.get(key);
    if (known !== undefined) return known;
    let bytes = this.overheadTokens;
    for (const part of message.parts)
      bytes += part.type === 'file' ? part.tokens : maxUtf8Bytes(partText(part)) + resultFileTokens(part);
    this.bounds.set(key, bytes);
    return bytes;
  }

  /** Tokens of a free text (system prompt, tool definitions), memoized by hash. */
  countText(text: string): number {
    if (text.length === 0) return 0;
    const hash = hashOfText(this.textHash(text));
    let tokens = this.cached(hash);
    if (tokens === undefined) {
      tokens = this.counter.count(text);
      this.remember(hash, tokens);
    }
    return tokens;
  }

  private partHash(part: Part): number {
    switch (part.type) {
      case 'text':
      case 'reasoning':
      case 'other':
        return hashChain(PART_SEEDS[part.type], this.textHash(part.text));
      case 'file':
        return hash53(`file\u0001${part.mediaType}\u0001${part.fingerprint}`);
      case 'tool-call':
        return hashChain(hash53(`call\u0001${part.id}\u0001${part.name}`), this.argsHash(part.args));
      case 'tool-result': {
        let hash = hashChain(
          hash53(`result\u0001${part.callId}\u0001${part.name}\u0001${part.isError ? 1 : 0}`),
          this.textHash(part.output),
        );
        // the files of a result are its content too: two screenshots are two results ("[file]" is the same text)
        if (!part.edited) for (const file of part.files ?? []) hash = hashChain(hash, this.partHash(file));
        return hash;
      }
    }
  }

  /** Hash of tool call arguments; memoized per arguments object, since frameworks pass the caller's objects on. */
  private argsHash(args: unknown): number {
    if (typeof args !== 'object' || args === null) return this.textHash(stableStringify(args));
    let hash = this.argsHashes.get(args);
    if (hash === undefined) {
      hash = this.textHash(stableStringify(args));
      this.argsHashes.set(args, hash);
    }
    return hash;
  }

  /**
   * Hash of a text. Long texts are memoized in a Map keyed by the text itself: the runtime hashes string keys
   * natively and compares equal strings with a fast native comparison (instant when it is the same string, as
   * when a framework resends the caller's messages), so a history of megabytes is not rehashed in JavaScript on
   * every call. Bounded by the total characters kept.
   */
  private textHash(text: string): number {
    if (text.length < MEMO_MIN_CHARS) return hash53(text);
    let hash = this.textHashes.get(text);
    if (hash === undefined) {
      hash = hash53(text);
      this.textHashes.set(text, hash);
    }
    return hash;
  }

  private cached(hash: number): number | undefined {
    return this.counts.get(hash);
  }

  private remember(hash: number, tokens: number): void {
    this.counts.set(hash, tokens);
  }
}

/**
 * The key of a message's count: its content hash, with the token estimate of each of its files chained on. A file's
 * estimate depends on the provider it goes to, which the hash (a store key) leaves out: the same image counted for
 * Claude and then for gpt-4o through one engine must not get the first count back.
 */
function countKey(hash: number, message: Message): number {
  let key = hash;
  for (const part of message.parts) {
    if (part.type === 'file') key = hashChain(key, part.tokens);
    else if (part.type === 'tool-result' && !part.edited)
      for (const file of part.files ?? []) key = hashChain(key, file.tokens);
  }
  return key;
}

/** Tokens of the files a tool result holds, as their provider counts them; none once the engine replaced the output. */
export function resultFileTokens(part: Part): number {
  if (part.type !== 'tool-result' || part.edited || !part.files) return 0;
  return part.files.reduce((sum, file) => sum + file.tokens, 0);
}

/**
 * At least the length of a text in UTF-8 bytes: exact for every code point of one UTF-16 unit (1 to 3 bytes); a
 * surrogate pair (4 bytes) counts 6 and a lone surrogate (written as U+FFFD, 3 bytes) 3.
 */
export function maxUtf8Bytes(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) bytes += code >= 0x800 ? 2 : 1;
  }
  return bytes;
}
