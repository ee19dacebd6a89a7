import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import type { StagePlan } from '../call/stage.js';
import type { MessageMeter } from '../counting/message-meter.js';
import type { EmbeddingCache } from '../embeddings/embedder.js';
import type { EmbedderError } from '../errors.js';
import type { CompressionDecision } from '../reports/decisions.js';
import { chooseRecall, recallCap } from './choose-recall.js';
import { type RecallBlock, RecallBlocks } from './recall-blocks.js';
import { MessageChunks, redactedMessages } from './recall-chunks.js';
import { RecallIndex } from './recall-index.js';
import { RecallRanking } from './recall-ranking.js';

/** Tokens of a recall block beyond its entries: the tags and the acknowledgement. */
const RECALL_PAIR_TOKENS = 24;

/** What reviewing one recall block found: the items it keeps (none when it left with its turn) and what changed. */
interface BlockReview {
  readonly items: readonly string[] | undefined;
  readonly changed: boolean;
  readonly piecesRedacted: number;
  readonly blocksDropped: number;
  readonly decisions: readonly CompressionDecision[];
}

/**
 * Recall for one engine instance: its index, rankings, rendered blocks and cut messages. Its two steps plan like the
 * other stages: older blocks that no longer pay for their place leave, and the first call that sees a user message
 * after earlier material left the prompt chooses what of it to quote before that message, within the recall budget
 * and under the hard limit. Later calls of the turn reuse the stored choice.
 */
export class RecallPlanner {
  private readonly ranking: RecallRanking;
  private readonly blocks: RecallBlocks;
  private readonly chunks = new MessageChunks();
  /** The redacted messages of each call, by its facts (read once per call, never changed). */
  private readonly redactedByCall = new WeakMap<CallFacts, ReadonlySet<number>>();

  constructor(
    private readonly meter: MessageMeter,
    acknowledgement: string,
    { embeddings, onEmbedderError }: { embeddings?: EmbeddingCache; onEmbedderError: (error: EmbedderError) => void },
  ) {
    this.blocks = new RecallBlocks(meter, acknowledgement, this.chunks);
    this.ranking = new RecallRanking(new RecallIndex(this.chunks), embeddings, onEmbedderError);
  }

  /**
   * The block made for the user message at `at`, undefined when it quotes nothing. Pieces of a result the model has
   * redacted since the choice was made leave it: a redaction takes the text out of every place it is quoted.
   */
  block(facts: CallFacts, at: number, items: readonly string[]): RecallBlock | undefined {
    return this.blocks.block(facts.messages, facts.prefixHashes[at] as number, at, this.withoutRedacted(facts, items));
  }

  /**
   * The blocks made for earlier user messages, reviewed: a block stays while the messages after it outweigh it
   * (dropping it would rewrite them all in the cache: a tool loop); it leaves when they are fewer tokens than it (a
   * chat turn), and with its turn when that was folded (`folded`: by this call, whose event tells it). A block whose
   * message left the prompt without a fold of this call (an earlier call's drop, carried over it) leaves reported,
   * and its choice is recorded empty, so the next call does not bring it back. Undefined when every block stays.
   */
  review(facts: CallFacts, point: CompressionPoint, projection: Projection, folded: boolean): StagePlan | undefined {
    const kept = new Map<number, readonly string[]>();
    const reviews: BlockReview[] = [];
    for (const [at, chosen] of point.recalls) {
      const review = this.reviewBlock(facts, point, projection, at, chosen, folded);
      if (review.items) kept.set(at, review.items);
      reviews.push(review);
    }
    if (!reviews.some((review) => review.changed)) return undefined;
    const sum = (count: (review: BlockReview) => number) => reviews.reduce((total, each) => total + count(each), 0);
    return {
      point: { ...point, recalls: kept },
      report: {
        decisions: reviews.flatMap((review) => review.decisions),
        recalled: {
          chunks: 0,
          tokens: 0,
          blocksDropped: sum((review) => review.blocksDropped),
          piecesRedacted: sum((review) => review.piecesRedacted),
        },
      },
    };
  }

  /**
   * The block for the latest user message, chosen once per message: the hidden material that matches it best, within
   * the recall budget and the room left under the hard limit (`tokens`: the prompt now). Undefined when none is due.
   */
  async choose(
    facts: CallFacts,
    point: CompressionPoint,
    projection: Projection,
    tokens: number,
  ): Promise<StagePlan | undefined> {
    const { limits } = facts;
    // a prompt below the compression threshold stays below it: a block that took it over would be folded away by the
    // next call from the stored point (a tool step, a retry, another instance), a rewrite of the prompt nobody asked for
    const ceiling = tokens <= limits.compressAt ? limits.compressAt : limits.hardLimit;
    const latest = facts.messages.findLastIndex((message) => message.role === 'user');
    const room = Math.min(recallCap(facts, latest), ceiling - tokens) - RECALL_PAIR_TOKENS;
    const choice = await chooseRecall({
      facts,
      point,
      pinned: projection.layout.pinned(point.coveredCount),
      rank: (query) => this.ranking.rank(query),
      budgetTokens: Math.max(0, room),
      meter: this.meter,
      redacted: this.redacted(facts),
    });
    if (!choice) return undefined;
    const items = this.fitted(facts, choice.at, choice.items, Math.max(0, room + RECALL_PAIR_TOKENS));
    const chosen = { ...point, recalls: new Map([...point.recalls, [choice.at, items]]) };
    const block = this.block(facts, choice.at, items);
    // an empty choice records the decision and changes nothing the model sees
    if (!block) return { point: chosen, projection };
    return {
      point: chosen,
      report: {
        decisions: [
          {
            trigger: 'recall',
            scope: { kind: 'messages', from: choice.at, to: choice.at + 1 },
            confidence: 1,
            details: `quoted ${block.chunks} piece${block.chunks === 1 ? '' : 's'} of earlier messages that left the prompt, matching the latest user message better than anything in view (${block.tokens} tokens)`,
          },
        ],
        recalled: { chunks: block.chunks, tokens: block.tokens, blocksDropped: 0, piecesRedacted: 0 },
      },
    };
  }

  /** One block made for the user message at `at`, reviewed (see `review`). */
  private reviewBlock(
    facts: CallFacts,
    point: CompressionPoint,
    projection: Projection,
    at: number,
    chosen: readonly string[],
    folded: boolean,
  ): BlockReview {
    if (at < point.coveredCount) return this.leftWithItsMessage(facts, at, chosen, folded);
    // pieces of results the model redacted since the choice leave the block, and the stored choice with them, so
    // the call that takes them out reports it and a retry finds it done
    const items = this.withoutRedacted(facts, chosen);
    const piecesRedacted = chosen.length - items.length;
    const redaction: CompressionDecision[] =
      piecesRedacted > 0
        ? [
            {
              trigger: 'redaction',
              scope: { kind: 'messages', from: at, to: at + 1 },
              confidence: 1,
              details: `${piecesRedacted} recalled pieces of tool results the model redacted left the recall block`,
            },
          ]
        : [];
    const kept = { items, changed: piecesRedacted > 0, piecesRedacted, blocksDropped: 0, decisions: redaction };
    const latest = facts.messages.findLastIndex((message) => message.role === 'user');
    const block = this.block(facts, at, items);
    if (at >= latest || !block) return kept;
    const after = projection.view.tokens.slice(at, latest).reduce((sum, count) => sum + count, 0);
    // decided by the first call of the turn (a kept block is then in the record); later calls keep what they find
    if (after > block.tokens || latest !== facts.messages.length - 1) return kept;
    // an empty choice records the decision, so a retry of this call finds it made and reports nothing again
    const dropped: CompressionDecision = {
      trigger: 'recall',
      scope: { kind: 'messages', from: at, to: at + 1 },
      confidence: 1,
      details: `the recall block made for an earlier user message left the prompt (${block.tokens} tokens, more than the ${after} tokens after it)`,
    };
    return { items: [], changed: true, piecesRedacted, blocksDropped: 1, decisions: [...redaction, dropped] };
  }

  /** A block whose user message is no longer in the prompt (folded, or left out by a drop). */
  private leftWithItsMessage(facts: CallFacts, at: number, chosen: readonly string[], folded: boolean): BlockReview {
    const block = this.block(facts, at, chosen);
    if (folded || !block)
      return { items: undefined, changed: true, piecesRedacted: 0, blocksDropped: 0, decisions: [] };
    const decision: CompressionDecision = {
      trigger: 'recall',
      scope: { kind: 'messages', from: at, to: at + 1 },
      confidence: 1,
      details: `the recall block made for a user message an earlier call's drop left out of the prompt left with it (${block.tokens} tokens)`,
    };
    return { items: [], changed: true, piecesRedacted: 0, blocksDropped: 1, decisions: [decision] };
  }

  /**
   * The chosen items, the files and then the largest pieces shed until the rendered block fits `limit`: the rendered block (escapes,
   * keys) can outgrow the estimate of its entries, and must never take the prompt past the recall budget or the hard
   * limit.
   */
  private fitted(facts: CallFacts, at: number, chosen: readonly string[], limit: number): string[] {
    const items = [...chosen];
    let block = this.block(facts, at, items);
    while (block && block.tokens > limit) {
      // the files brought back go first (the state still names them), then the largest pieces
      const files = items.findIndex((id) => id.endsWith(':files'));
      const sizes = items.map((id) => this.chunkSize(facts, id));
      items.splice(files >= 0 ? files : sizes.indexOf(Math.max(...sizes)), 1);
      block = this.block(facts, at, items);
    }
    return items;
  }

  private redacted(facts: CallFacts): ReadonlySet<number> {
    let found = this.redactedByCall.get(facts);
    if (!found) {
      found = redactedMessages(facts);
      this.redactedByCall.set(facts, found);
    }
    return found;
  }

  /** The recalled pieces left when those of messages with a redacted result are taken out (the same array if none). */
  private withoutRedacted(facts: CallFacts, items: readonly string[]): readonly string[] {
    const redacted = this.redacted(facts);
    if (redacted.size === 0) return items;
    const kept = items.filter((id) => !redacted.has(Number(id.slice(0, id.indexOf(':')))));
    return kept.length === items.length ? items : kept;
  }

  /** Characters of a recalled chunk as rendered (escapes included), to shed the largest first. */
  private chunkSize(facts: CallFacts, id: string): number {
    const [chunk] = this.chunks.named(facts.messages, [id]);
    return chunk ? JSON.stringify(chunk.text).replace(/[<>&]/g, '      ').length : 0;
  }
}
