import type { MessageMeter } from '../counting/message-meter.js';
import type { EmbeddingCache } from '../embeddings/embedder.js';
import type { CallFacts } from '../engine/call-facts.js';
import type { CompressionPoint } from '../engine/compression-point.js';
import type { Decided } from '../engine/decide.js';
import type { Projection } from '../engine/projection.js';
import type { EmbedderError } from '../errors.js';
import type { CompressionDecision } from '../triggers/decisions.js';
import { chooseRecall } from './choose-recall.js';
import { type RecallBlock, RecallBlocks } from './recall-blocks.js';
import { recalledChunks, redactedMessages } from './recall-chunks.js';
import { RecallIndex } from './recall-index.js';
import { RecallRanking } from './recall-ranking.js';

/** Tokens of a recall block beyond its entries: the tags and the acknowledgement. */
const RECALL_PAIR_TOKENS = 24;

/**
 * The recall stage, after the decide stage: older blocks that no longer pay for their place leave, and the first call
 * that sees a user message after earlier material left the prompt chooses what of it to quote before that message,
 * within the recall budget and under the hard limit. Later calls of the turn reuse the stored choice.
 */
export class RecallStage {
  private readonly ranking: RecallRanking;
  private readonly blocks: RecallBlocks;

  constructor(
    private readonly meter: MessageMeter,
    acknowledgement: string,
    { embeddings, onEmbedderError }: { embeddings?: EmbeddingCache; onEmbedderError: (error: EmbedderError) => void },
  ) {
    this.blocks = new RecallBlocks(meter, acknowledgement);
    this.ranking = new RecallRanking(new RecallIndex(), embeddings, onEmbedderError);
  }

  /**
   * The block made for the user message at `at`, undefined when it quotes nothing. Pieces of a result the model has
   * redacted since the choice was made leave it: a redaction takes the text out of every place it is quoted.
   */
  block(facts: CallFacts, at: number, items: readonly string[]): RecallBlock | undefined {
    return this.blocks.block(facts.messages, facts.prefixHashes[at] as number, at, this.withoutRedacted(facts, items));
  }

  /** The recalled pieces left when those of messages with a redacted result are taken out (the same array if none). */
  private withoutRedacted(facts: CallFacts, items: readonly string[]): readonly string[] {
    const redacted = redactedMessages(facts);
    if (redacted.size === 0) return items;
    const kept = items.filter((id) => !redacted.has(Number(id.slice(0, id.indexOf(':')))));
    return kept.length === items.length ? items : kept;
  }

  /** Characters of a recalled chunk as rendered (escapes included), to shed the largest first. */
  private chunkSize(facts: CallFacts, id: string): number {
    const [chunk] = recalledChunks(facts.messages, [id]);
    return chunk ? JSON.stringify(chunk.text).replace(/[<>&]/g, '      ').length : 0;
  }

  async apply(
    facts: CallFacts,
    decided: Decided,
    {
      project,
      total,
    }: {
      project: (point: CompressionPoint) => Projection;
      total: (projection: Projection, point: CompressionPoint) => number;
    },
  ): Promise<Decided> {
    const { limits } = facts;
    if (limits.maxRecallTokens <= 0) return decided;
    let { point, projection } = decided;
    const decisions: CompressionDecision[] = [];
    const latest = facts.messages.findLastIndex((message) => message.role === 'user');

    // A block made for an earlier user message stays while the messages after it outweigh it (dropping it would
    // rewrite them all in the cache: a tool loop); it leaves when they are fewer tokens than it (a chat turn).
    const kept = new Map<number, readonly string[]>();
    let blocksDropped = 0;
    let piecesRedacted = 0;
    let changed = false;
    for (const [at, chosen] of point.recalls) {
      if (at < point.coveredCount) {
        changed = true; // folded with its turn
        continue;
      }
      // pieces of results the model redacted since the choice leave the block, and the stored choice with them, so
      // the call that takes them out reports it and a retry finds it done
      const items = this.withoutRedacted(facts, chosen);
      if (items.length < chosen.length) {
        changed = true;
        piecesRedacted += chosen.length - items.length;
        decisions.push({
          trigger: 'redaction',
          scope: { kind: 'messages', from: at, to: at + 1 },
          confidence: 1,
          details: `${chosen.length - items.length} recalled pieces of tool results the model redacted left the recall block`,
        });
      }
      const block = this.block(facts, at, items);
      if (at >= latest || !block) {
        kept.set(at, items);
        continue;
      }
      const after = projection.view.tokens.slice(at, latest).reduce((sum, tokens) => sum + tokens, 0);
      // decided by the first call of the turn (a kept block is then in the record); later calls keep what they find
      if (after > block.tokens || latest !== facts.messages.length - 1) {
        kept.set(at, items);
        continue;
      }
      // an empty choice records the decision, so a retry of this call finds it made and reports nothing again
      kept.set(at, []);
      changed = true;
      blocksDropped++;
      decisions.push({
        trigger: 'recall',
        scope: { kind: 'messages', from: at, to: at + 1 },
        confidence: 1,
        details: `the recall block made for an earlier user message left the prompt (${block.tokens} tokens, more than the ${after} tokens after it)`,
      });
    }
    if (changed) {
      point = { ...point, recalls: kept };
      projection = project(point);
    }

    const room = Math.min(limits.maxRecallTokens, limits.hardLimit - total(projection, point)) - RECALL_PAIR_TOKENS;
    const choice = await chooseRecall({
      facts,
      point,
      pinned: projection.layout.pinned(point.coveredCount),
      rank: (query) => this.ranking.rank(query),
      budgetTokens: Math.max(0, room),
      meter: this.meter,
    });
    let recalled = { chunks: 0, tokens: 0 };
    if (choice) {
      // the rendered block (escapes, keys) can outgrow the estimate of its entries: shed the largest pieces until it
      // fits the room, so it never takes the prompt past the recall budget or the hard limit
      const items = [...choice.items];
      const limit = Math.max(0, room + RECALL_PAIR_TOKENS);
      let fitted = this.block(facts, choice.at, items);
      while (fitted && fitted.tokens > limit) {
        const sizes = items.map((id) => this.chunkSize(facts, id));
        items.splice(sizes.indexOf(Math.max(...sizes)), 1);
        fitted = this.block(facts, choice.at, items);
      }
      choice.items = items;
      point = { ...point, recalls: new Map([...point.recalls, [choice.at, choice.items]]) };
      const block = this.block(facts, choice.at, choice.items);
      if (block) {
        projection = project(point);
        recalled = { chunks: block.chunks, tokens: block.tokens };
        decisions.push({
          trigger: 'recall',
          scope: { kind: 'messages', from: choice.at, to: choice.at + 1 },
          confidence: 1,
          details: `quoted ${block.chunks} piece${block.chunks === 1 ? '' : 's'} of earlier messages that left the prompt, matching the latest user message better than anything in view (${block.tokens} tokens)`,
        });
      }
    }
    if (point === decided.point) return decided;
    return {
      ...decided,
      point,
      projection,
      decisions: [...decided.decisions, ...decisions],
      recalled: { ...recalled, blocksDropped, piecesRedacted },
    };
  }
}
