import { LRUCache } from 'lru-cache';
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { eng } from 'stopword';
import { exactRanking } from '../signals/exact-terms.js';
import type { Message } from '../transcript/transcript.js';
import { MessageChunks, type RecallChunk } from './recall-chunks.js';
import { askedKinds, type Entity, type EntityKind, entitiesOf } from './recall-entities.js';
import { type RecallHit, reciprocalRankFusion } from './recall-fusion.js';
import { ChatSpeakers } from './recall-speakers.js';

/**
 * A chunk as indexed: its text, the end of the message before it (what it answers or follows: its context) and, in a
 * chat, the end of the message before that (`earlier`).
 */
interface Document {
  readonly id: string;
  readonly text: string;
  readonly context: string;
  readonly earlier: string;
}

/**
 * Weight of the words of the message before a chunk, against the chunk's own: half. An answer rarely repeats its
 * question ("A sunset over the lake." after "What did you paint?"), and a tool result its call; with the context
 * counted at half, a question that asks about it finds the answer, and the turn that holds the words still ranks
 * first. On the fixture conversations: evidence retained 57.6% -> 63.6% (25% window) and 68.6% -> 73.2% (50%) at
 * the same cost (0.25: 61.8% and 72.2%; 1: 62.0% and 72.1%).
 */
const CONTEXT_BOOST = 0.5;

/**
 * Weight of the words of the message two before a chat turn: half the context's. In a chat a topic runs over turns:
 * one tells of the meteor shower, the other asks "How did it make you feel?", and the answer ("I felt tiny and in awe
 * of the universe") names neither. Taken only where the three messages are chat turns (no tool calls or results): a
 * tool result's context is its call. On the fixture conversations: 72.6% / 80.4% -> 74.7% / 81.4% of the questions
 * keep their evidence (25% / 50% windows), open-domain 43.2% / 45.5% -> 45.5% / 54.5%, multi-hop 32.4% / 49.3% ->
 * 37.3% / 49.3%; without speaker labels 70.7% / 80.0% -> 72.6% / 80.4%. Three messages back at the next half (0.125)
 * gave 74.2% / 80.9%, two messages at the context's weight 74.1% / 81.1%.
 */
const EARLIER_BOOST = 0.25;

/**
 * The second hop of a search: the best matches (`LINK_SEEDS`) each give the rarest words they share with other
 * chunks (`LINK_WORDS_PER_SEED`), and the query searched again with them at `LINK_WEIGHT` is fused with the first
 * ranking. A question whose answer is spread over turns ("Where did she move from?": "since I moved from my home
 * country" ... "my home country, Sweden") finds the turn its first match names. Taken for questions only (see
 * `chooseRecall`). On the fixture conversations: evidence retained 63.4% -> 63.6% (25% window), 72.5% -> 72.8% (50%),
 * multi-hop questions 31.0% -> 28.2% at 50%: most of their evidence is linked by meaning, not by a shared word.
 */
const LINK_SEEDS = 3;
const LINK_WORDS_PER_SEED = 3;
const LINK_WEIGHT = 0.5;
/** Share of the chunks above which a word links everything, so nothing. */
const LINK_MAX_SHARE = 0.05;

/**
 * Share of a chat turn's score that the turn before it gets, for a question (the other way round from
 * `CONTEXT_BOOST`, at its weight): a turn that only asks or reacts ("For walking or running?") is found by its reply.
 * On the fixture conversations: 74.7% / 81.4% -> 75.9% / 82.5% of the questions keep their evidence (25% / 50%
 * windows), multi-hop 37.3% / 49.3% -> 38.0% / 51.4%; without speaker labels 72.6% / 80.4% -> 76.2% / 81.4%. At a
 * quarter: 75.4% / 81.2%; at the whole score: 75.8% / 82.6%.
 */
const REPLY_WEIGHT = 0.5;

/** Characters of the end of the message before a chunk indexed as its context. */
const CONTEXT_CHARS = 400;

interface Indexed {
  readonly search: MiniSearch<Document>;
  readonly chunks: Map<string, RecallChunk>;
  /** Chunk ids per indexed message, in order. */
  readonly ids: string[][];
  /** `hashes[k]`: the prefix hash of the first k indexed messages. */
  readonly hashes: number[];
  /**
   * Chunks holding each term (of their own text), for the words that link a match to other turns; counted when a
   * second hop first needs them, through the first `through` indexed messages (see `termCounts`).
   */
  readonly df: { readonly counts: Map<string, number>; through: number };
  /** The named things of each piece (see `entitiesOf`), read when a question for a kind of thing first needs them. */
  readonly entities: { readonly of: Map<string, readonly Entity[]>; through: number };
  /** Who speaks in the indexed messages, for a question about someone by name. */
  readonly speakers: ChatSpeakers;
}

/** Most chunks all the indexes of an engine hold together (a chunk is at most 1,200 characters). */
const MAX_INDEXED_CHUNKS = 100_000;

/** Longest query text used, in characters: a pasted document must not turn every term into a query term. */
const MAX_QUERY_CHARS = 4_000;

const STOPWORDS = new Set(eng);

/**
 * Terms of a text as the index and the queries see them: lowercased, English stop words and one-character words left
 * out, Porter-stemmed ("painted" and "paints" are one term). On the fixture conversations this puts every evidence
 * turn of 57% of the questions in the top ten, against 49% for plain words.
 */
function processTerm(term: string): string | null {
  let processed = PROCESSED_TERMS.get(term);
  if (processed === undefined) {
    const lower = term.toLowerCase();
    processed = lower.length < 2 || STOPWORDS.has(lower) ? null : stemmer(lower);
    if (PROCESSED_TERMS.size >= MAX_PROCESSED_TERMS) PROCESSED_TERMS.clear();
    PROCESSED_TERMS.set(term, processed);
  }
  return processed;
}

/**
 * Terms as `processTerm` gave them, shared by every index of the process: a pure function of the word, and a
 * history's words repeat (indexing a long history stems each distinct word once). Emptied when full.
 */
const PROCESSED_TERMS = new Map<string, string | null>();
const MAX_PROCESSED_TERMS = 100_000;

/**
 * BM25 (MiniSearch's BM25+) over the chunks of a conversation's messages, kept per conversation and extended as the
 * conversation grows: a call indexes only the messages that are new since the last one. A history that forked from
 * the indexed one (an edited or regenerated message) is indexed again.
 */
export class RecallIndex {
  /** Bounded by conversations and by the chunks they hold together, so many long histories cannot grow it unbounded. */
  private readonly conversations = new LRUCache<string, Indexed>({
    max: 100,
    maxSize: MAX_INDEXED_CHUNKS,
    sizeCalculation: (indexed) => Math.max(1, indexed.chunks.size),
  });

  /** `chunks`: the engine instance's cut messages, shared with its recall blocks. */
  constructor(private readonly messageChunks: MessageChunks = new MessageChunks()) {}

  /**
   * The chunks of messages before `through` that match `query` and pass `keep`, best first. `prefixHashes[k]` is the
   * hash of the first k messages (the call's facts).
   */
  search({
    conversation,
    messages,
    prefixHashes,
    through,
    query,
    keep,
    connect = true,
  }: {
    conversation: string;
    messages: readonly Message[];
    prefixHashes: readonly number[];
    through: number;
    query: string;
    keep: (chunk: RecallChunk) => boolean;
    /**
     * Whether to take the second hop (see `LINK_SEEDS`); without it the scores are BM25's own, comparable between
     * chunks (a fused ranking turns equal scores into ranks).
     */
    connect?: boolean;
  }): RecallHit[] {
    const indexed = this.indexed(conversation, messages, prefixHashes, through);
    const asked = query.slice(0, MAX_QUERY_CHARS);
    const named = indexed.speakers.named(asked);
    // in a chat the people named are found by who speaks (below), not by their names as words
    const text = connect ? indexed.speakers.withoutSpeakers(asked) : asked;
    const options = {
      filter: (result: { id: string }) => keep(indexed.chunks.get(result.id) as RecallChunk),
      boost: { context: CONTEXT_BOOST, earlier: EARLIER_BOOST },
    };
    const hitsOf = (results: readonly { id: string; score: number }[]) =>
      results.map((hit) => ({ chunk: indexed.chunks.get(hit.id) as RecallChunk, score: hit.score }));
    const lexical = hitsOf(indexed.search.search(text, options));
    const exact = exactHits(lexical, text, indexed.chunks.size);
    const direct = exact.length === 0 ? lexical : namedFirst(lexical, exact);
    if (!connect) return direct;
    const first = withReplies(indexed, direct, keep);
    // the second hop: the query with the words that link its best matches to other turns, fused with the first
    const terms = new Set(termsOf(text));
    const links = linkWords(indexed, terms, first.slice(0, LINK_SEEDS));
    const rankings = [first];
    // a question for a kind of thing ("Which cities...", "What books...") ranks the pieces naming one, by the first
    // ranking: the things a list question asks for are named in turns that share no other word with it
    const kinds = askedKinds(text);
    if (kinds.size > 0) {
      const named = namingKind(indexed, kinds, first, keep);
      if (named.length > 0) rankings.push(named);
    }
    if (links.length > 0) {
      const second = indexed.search.search(`${text} ${links.join(' ')}`, {
        ...options,
        boostTerm: (term: string) => (terms.has(term) ? 1 : LINK_WEIGHT),
      });
      rankings.push(hitsOf(second));
    }
    // a question about someone by name: each ranking again with only that person's turns, fused with the rest
    if (named) for (const hits of [...rankings]) rankings.push(hits.filter(({ chunk }) => named(chunk.message)));
    return rankings.length === 1 ? first : reciprocalRankFusion(rankings);
  }

  /** Every chunk of the messages before `through`, in conversation order. */
  chunks({
    conversation,
    messages,
    prefixHashes,
    through,
  }: {
    conversation: string;
    messages: readonly Message[];
    prefixHashes: readonly number[];
    through: number;
  }): RecallChunk[] {
    const indexed = this.indexed(conversation, messages, prefixHashes, through);
    return indexed.ids.flatMap((ids) => ids.map((id) => indexed.chunks.get(id) as RecallChunk));
  }

  private indexed(
    conversation: string,
    messages: readonly Message[],
    prefixHashes: readonly number[],
    through: number,
  ): Indexed {
    let indexed = this.conversations.get(conversation);
    const shared = indexed ? Math.min(indexed.ids.length, through) : 0;
    // the index holds exactly the messages before `through` (built again when it held more: discarded documents
    // would still weigh in the scores), so the scores never depend on what other calls saw
    // a history that forked, or an index holding more discarded documents than live ones, is built again
    if (
      !indexed ||
      indexed.hashes[shared] !== prefixHashes[shared] ||
      indexed.ids.length > through ||
      indexed.search.dirtCount > Math.max(100, indexed.search.documentCount)
    ) {
      indexed = {
        search: new MiniSearch<Document>({ fields: ['text', 'context', 'earlier'], processTerm, autoVacuum: false }),
        chunks: new Map(),
        ids: [],
        hashes: [prefixHashes[0] as number],
        df: { counts: new Map(), through: 0 },
        entities: { of: new Map(), through: 0 },
        speakers: new ChatSpeakers(),
      };
      this.conversations.set(conversation, indexed);
    }
    const added: Document[] = [];
    for (let index = indexed.ids.length; index < through; index++) {
      const chunks = this.messageChunks.of(messages[index] as Message, index);
      const endOf = (at: number) =>
        at >= 0 ? (this.messageChunks.of(messages[at] as Message, at).at(-1)?.text ?? '').slice(-CONTEXT_CHARS) : '';
      const context = endOf(index - 1);
      const chat = [index, index - 1, index - 2].every((at) => at >= 0 && chatTurn(messages[at] as Message));
      const earlier = chat ? endOf(index - 2) : '';
      for (const chunk of chunks) indexed.chunks.set(chunk.id, chunk);
      indexed.ids.push(chunks.map((chunk) => chunk.id));
      indexed.speakers.add(messages[index] as Message);
      indexed.hashes.push(prefixHashes[index + 1] as number);
      for (const chunk of chunks) added.push({ id: chunk.id, text: chunk.text, context, earlier });
    }
    if (added.length > 0) {
      indexed.search.addAll(added);
      this.conversations.set(conversation, indexed); // its size changed
    }
    return indexed;
  }
}

/**
 * The lexical hits that hold what the query names verbatim (a path, an identifier, a long number: see
 * `exactRanking`), best first, their score the exact one: BM25 splits such names into words every read of a look-alike
 * file shares (`module`, `2`), so the chunk of the file the message names can rank below others.
 */
function exactHits(lexical: readonly RecallHit[], query: string, total: number): RecallHit[] {
  const ranked = exactRanking(
    query,
    lexical.map(({ chunk }) => chunk.text),
    total,
  );
  return ranked.map(({ index, score }) => ({ chunk: (lexical[index] as RecallHit).chunk, score }));
}

/**
 * BM25's hits with those holding what the query names first, their scores still comparable between chunks (recall of
 * a remark compares a hidden chunk's with the best one in view): a holder's score is raised by the best BM25 score
 * times one and its exact score, above every chunk that holds none of it, and a holder of more above one of less.
 */
function namedFirst(lexical: readonly RecallHit[], exact: readonly RecallHit[]): RecallHit[] {
  const top = lexical[0]?.score ?? 0;
  const bonus = new Map(exact.map(({ chunk, score }) => [chunk.id, (1 + score) * top]));
  return lexical
    .map((hit) => ({ chunk: hit.chunk, score: hit.score + (bonus.get(hit.chunk.id) ?? 0) }))
    .sort((a, b) => b.score - a.score || a.chunk.message - b.chunk.message);
}

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** The terms of a text as the index holds them. */
function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const word of tokenize(text)) {
    const term = processTerm(word);
    if (term) terms.push(term);
  }
  return terms;
}

/**
 * The chunks holding each term, extended over the messages indexed since it was last read: only a second hop reads
 * it, so a conversation that never takes one (a tool loop) never tokenizes its chunks twice.
 */
function termCounts(indexed: Indexed): ReadonlyMap<string, number> {
  const { df } = indexed;
  for (; df.through < indexed.ids.length; df.through++) {
    for (const id of indexed.ids[df.through] as string[]) {
      const text = indexed.chunks.get(id)?.text ?? '';
      for (const term of new Set(termsOf(text))) df.counts.set(term, (df.counts.get(term) ?? 0) + 1);
    }
  }
  return df.counts;
}

/**
 * What the best matches name that the query does not: per seed, its rarest words that other chunks share (a word
 * only the seed holds links to nothing; one in more than 5% of the chunks links to everything), as written.
 */
function linkWords(indexed: Indexed, asked: ReadonlySet<string>, seeds: readonly RecallHit[]): string[] {
  const df = termCounts(indexed);
  const common = Math.max(2, indexed.search.documentCount * LINK_MAX_SHARE);
  const chosen = new Map<string, string>();
  for (const { chunk } of seeds) {
    const candidates = new Map<string, number>();
    const words = new Map<string, string>();
    for (const word of tokenize(chunk.text)) {
      const term = processTerm(word);
      if (!term || asked.has(term) || chosen.has(term) || candidates.has(term)) continue;
      const shared = df.get(term) ?? 0;
      if (shared < 2 || shared > common) continue;
      candidates.set(term, shared);
      words.set(term, word);
    }
    const rarest = [...candidates].sort((a, b) => a[1] - b[1]).slice(0, LINK_WORDS_PER_SEED);
    for (const [term] of rarest) chosen.set(term, words.get(term) as string);
  }
  return [...chosen.values()];
}

/**
 * The pieces naming a thing of one of `kinds` (not one of the people who speak), ordered by their score in `first`
 * (those it does not hold last, in conversation order).
 */
function namingKind(
  indexed: Indexed,
  kinds: ReadonlySet<EntityKind>,
  first: readonly RecallHit[],
  keep: (chunk: RecallChunk) => boolean,
): RecallHit[] {
  const people = new Set([...indexed.speakers.people()].map((name) => name.toLowerCase()));
  const scores = new Map(first.map((hit) => [hit.chunk.id, hit.score]));
  const hits: RecallHit[] = [];
  for (const [id, entities] of entitiesByChunk(indexed)) {
    const chunk = indexed.chunks.get(id) as RecallChunk;
    if (!entities.some((entity) => kinds.has(entity.kind) && !people.has(entity.key)) || !keep(chunk)) continue;
    hits.push({ chunk, score: scores.get(id) ?? 0 });
  }
  return hits.sort((a, b) => b.score - a.score || a.chunk.message - b.chunk.message);
}

/**
 * The named things of each piece that names any, extended over the messages indexed since it was last read: only a
 * question for a kind of thing reads it.
 */
function entitiesByChunk(indexed: Indexed): ReadonlyMap<string, readonly Entity[]> {
  const { entities } = indexed;
  for (; entities.through < indexed.ids.length; entities.through++)
    for (const id of indexed.ids[entities.through] as string[]) {
      const found = entitiesOf(indexed.chunks.get(id)?.text ?? '');
      if (found.length > 0) entities.of.set(id, found);
    }
  return entities.of;
}

/** A message of a conversation between people: a user's or assistant's, with no tool calls or results. */
function chatTurn(message: Message): boolean {
  return (
    (message.role === 'user' || message.role === 'assistant') &&
    message.parts.every((part) => part.type !== 'tool-call' && part.type !== 'tool-result')
  );
}

/**
 * Hits with what their replies add: each message's best score, times `REPLY_WEIGHT`, added to the last piece of the
 * message before it (found or not), best first. A chat turn is indexed with what it follows (`CONTEXT_BOOST`); this
 * is the other way: "For walking or running?" is found by the reply about the new shoes it asked after.
 */
function withReplies(indexed: Indexed, hits: readonly RecallHit[], keep: (chunk: RecallChunk) => boolean): RecallHit[] {
  const scores = new Map(hits.map((hit) => [hit.chunk.id, hit.score]));
  const best = new Map<number, number>();
  for (const { chunk, score } of hits) best.set(chunk.message, Math.max(best.get(chunk.message) ?? 0, score));
  for (const [message, score] of best) {
    const id = indexed.ids[message - 1]?.at(-1);
    if (id === undefined || !keep(indexed.chunks.get(id) as RecallChunk)) continue;
    scores.set(id, (scores.get(id) ?? 0) + REPLY_WEIGHT * score);
  }
  return [...scores]
    .map(([id, score]) => ({ chunk: indexed.chunks.get(id) as RecallChunk, score }))
    .sort((a, b) => b.score - a.score || a.chunk.message - b.chunk.message);
}
