import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { MessageMeter } from '../counting/message-meter.js';
import { type Message, messageText } from '../transcript/transcript.js';
import { filesItem, filesToRecall, type RecallChunk } from './recall-chunks.js';
import type { RecallHit } from './recall-fusion.js';
import type { RecallQuery } from './recall-ranking.js';
import { renderRecallEntry } from './render-recall.js';

/** Tokens a recalled entry costs beyond its text: its JSON keys, quotes and indentation. */
const ENTRY_OVERHEAD_TOKENS = 10;
/** A question mark of any script: Latin, fullwidth (CJK), Arabic. */
const QUESTION_MARK = /[?？؟]/;
/** How many times the recall share a question in a chat may take, within the room below the threshold. */
export const QUESTION_RECALL_FACTOR = 2;

/**
 * The cap of the recall block for the user message at `at`: `maxRecallTokens`, or `QUESTION_RECALL_FACTOR` times it
 * for a question in a conversation between people (no tool calls), whose best matches are what it asks about.
 */
export function recallCap(facts: Pick<CallFacts, 'messages' | 'sites' | 'limits'>, at: number): number {
  const factor = chatQuestion(facts, at) ? QUESTION_RECALL_FACTOR : 1;
  return factor * facts.limits.maxRecallTokens;
}

/** Whether the message at `at` is a question in a conversation between people (no tool results in the history). */
function chatQuestion(facts: Pick<CallFacts, 'messages' | 'sites'>, at: number): boolean {
  const message = facts.messages[at];
  return message !== undefined && facts.sites.length === 0 && QUESTION_MARK.test(messageText(message));
}

/** The messages before `at` whose tool results the point masks (and the model did not redact). */
function maskedBefore(facts: CallFacts, point: CompressionPoint, at: number): Set<number> {
  const masked = new Set<number>();
  for (const key of point.masked) {
    const site = facts.siteByKey.get(key);
    if (site && site.messageIndex < at && !facts.redactions.has(key)) masked.add(site.messageIndex);
  }
  return masked;
}

/** Hits looked at, best first, before the choice stops. */
const MAX_HITS = 60;

/**
 * Which earlier material to quote before the latest user message: the chunks of hidden messages (folded into the
 * state, or masked tool results) that rank best against it (BM25, fused with an embedder's ranking when one is
 * configured), best first within `budgetTokens`, then put back in conversation order. A question takes its best matches; any other message only those that match it better than
 * anything the model still sees, so a remark about what is in view recalls nothing and a reference to something that
 * left the prompt recalls it. Never quoted: kept messages, the pinned message, chunks a block in view already
 * quotes, results the model redacted, chunks that only repeat the message. Undefined when the latest user message is
 * not in view, already has its choice, or nothing before it is hidden.
 */
export async function chooseRecall({
  facts,
  point,
  pinned,
  rank,
  budgetTokens,
  meter,
  redacted,
}: {
  facts: CallFacts;
  point: CompressionPoint;
  /** The user message pinned after the state pair, or -1. */
  pinned: number;
  /** Ranks the chunks of the history against the query, best first (BM25, or fused with an embedder's ranking). */
  rank: (query: RecallQuery) => Promise<RecallHit[]>;
  budgetTokens: number;
  meter: MessageMeter;
  /** Indexes of the messages holding a result the model redacted (`redactedMessages`). */
  redacted: ReadonlySet<number>;
}): Promise<{ at: number; items: string[] } | undefined> {
  const at = facts.messages.findLastIndex((message) => message.role === 'user');
  if (at < point.coveredCount || point.recalls.has(at)) return undefined;
  const maskedMessages = maskedBefore(facts, point, at);
  if (point.coveredCount === 0 && maskedMessages.size === 0) return undefined;
  const shown = new Set<string>();
  for (const [where, items] of point.recalls) if (where >= point.coveredCount) for (const id of items) shown.add(id);
  const query = messageText(facts.messages[at] as Message);
  const queryWords = words(query);
  const hidden = (chunk: RecallChunk) =>
    !shown.has(chunk.id) &&
    ((chunk.message < point.coveredCount && chunk.message !== pinned) || maskedMessages.has(chunk.message));
  // Nothing before the message in view: the fold that just condensed it would be undone by quoting it back.
  let visible = false;
  for (let index = point.coveredCount; index < at && !visible; index++) visible = !maskedMessages.has(index);
  if (!visible) return { at, items: [] };
  // In a conversation between people a question recalls its best matches, and what they name (the second hop).
  // Anything else, and any message where the assistant acts with tools (its view is dense with the work at hand, and
  // a block stays for the whole tool loop), recalls only what matches its own words better than the best match the
  // model can already read: a reference to something that left the prompt, not a remark on what is in view.
  const asked = chatQuestion(facts, at);
  const hits = await rank({
    conversation: facts.conversationKey,
    messages: facts.messages,
    prefixHashes: facts.prefixHashes,
    through: at,
    query,
    keep: (chunk) => !redacted.has(chunk.message),
    connect: asked,
  });
  let bar = 0;
  if (!asked) for (const hit of hits) if (!hidden(hit.chunk)) bar = Math.max(bar, hit.score);
  const chosen: RecallChunk[] = [];
  const withFiles: number[] = [];
  let left = budgetTokens;
  let looked = 0;
  for (const { chunk, score } of hits) {
    if (score <= bar || looked >= MAX_HITS) break;
    // a chunk that only repeats the message (a resent instruction, an error the user pasted again) adds nothing
    if (!hidden(chunk) || echoes(chunk.text, queryWords)) continue;
    looked++;
    // priced as rendered: JSON with `<`, `>` and `&` escaped, so the block fits without shedding
    const tokens = meter.countText(renderRecallEntry(chunk)) + ENTRY_OVERHEAD_TOKENS;
    if (tokens > left) continue;
    chosen.push(chunk);
    left -= tokens;
    // the files of a user message the block quotes come back with it when the message refers to one, as its
    // provider counts them, if they fit (else the state names them)
    const files = filesToRecall(facts.messages, at, chunk, facts.limits.maxRecallTokens);
    const fileTokens = files.reduce((sum, file) => sum + file.tokens, 0);
    if (files.length > 0 && fileTokens <= left) {
      withFiles.push(chunk.message);
      left -= fileTokens;
    }
  }
  chosen.sort((a, b) => a.message - b.message || a.id.localeCompare(b.id, 'en', { numeric: true }));
  return { at, items: [...chosen.map((chunk) => chunk.id), ...withFiles.sort((a, b) => a - b).map(filesItem)] };
}

/** Share of a chunk's words found in the message above which the chunk only repeats it. */
const ECHO_SHARE = 0.8;

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []);
}

function echoes(text: string, query: ReadonlySet<string>): boolean {
  const own = words(text);
  if (own.size === 0) return true;
  let shared = 0;
  for (const word of own) if (query.has(word)) shared++;
  return shared / own.size >= ECHO_SHARE;
}
