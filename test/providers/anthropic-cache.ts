import { createHash } from 'node:crypto';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Anthropic's prompt cache as its documentation describes it, for the local provider server: a request is read as
 * blocks in the order the cache keys them (tools, system, then each message's content blocks); a `cache_control`
 * mark (on a block, inside a tool result's content, or the request's own for its last block) writes the prefix that
 * ends there, and a later request reads the longest prefix written before that ends at most 20 blocks before one of
 * its marks. A block's mark is not part of what is compared; a string content is the one text block it stands for.
 */

type Block = Record<string, unknown>;

/** What one request read from the cache and wrote to it, in the server's tokens. */
export interface CacheUse {
  readonly read: number;
  readonly write: number;
}

/** Blocks before a mark that the cache looks back over for an earlier write. */
const LOOKBACK_BLOCKS = 20;

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

const isBlock = (value: unknown): value is Block => typeof value === 'object' && value !== null;

const blocksOf = (content: unknown): Block[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : Array.isArray(content)
      ? content.filter(isBlock)
      : [];

const hasMark = (block: Block): boolean =>
  block.cache_control != null || (Array.isArray(block.content) && blocksOf(block.content).some(hasMark));

/** A block without its marks, a tool result's content as blocks: what the cache compares. */
function plain(block: Block): Block {
  const { cache_control: _mark, ...rest } = block;
  if (rest.type === 'tool_result' && rest.content !== undefined)
    return { ...rest, content: blocksOf(rest.content).map(plain) };
  return rest;
}

/** The text of a block the server counts (as it counts a whole request). */
function blockText(block: Block): string {
  if (typeof block.text === 'string') return block.text;
  if (block.type === 'tool_use') return JSON.stringify(block.input ?? {});
  if (block.type === 'tool_result') return blocksOf(block.content).map(blockText).join('\n');
  return JSON.stringify(plain(block));
}

/** The request's blocks in the cache's order, each with its key text, its tokens and whether it carries a mark. */
function requestBlocks(body: Block): Array<{ key: string; tokens: number; marked: boolean }> {
  const entries: Array<{ key: string; block: Block; text: string }> = [];
  for (const definition of Array.isArray(body.tools) ? body.tools.filter(isBlock) : [])
    entries.push({
      key: `tool:${JSON.stringify(plain(definition))}`,
      block: definition,
      text: JSON.stringify(plain(definition)),
    });
  for (const block of blocksOf(body.system))
    entries.push({ key: `system:${JSON.stringify(plain(block))}`, block, text: blockText(block) });
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isBlock) : []) {
    for (const block of blocksOf(message.content))
      entries.push({ key: `${String(message.role)}:${JSON.stringify(plain(block))}`, block, text: blockText(block) });
  }
  return entries.map(({ key, block, text }) => ({
    key,
    tokens: countTokens(text, PLAIN_TEXT),
    marked: hasMark(block),
  }));
}

/** The prompt cache of one server: the prefixes its requests' marks wrote. */
export class AnthropicPromptCache {
  private readonly written = new Set<string>();

  /** Reads and writes of one request whose prompt the server counts `inputTokens`. */
  use(body: unknown, inputTokens: number): CacheUse {
    if (!isBlock(body)) return { read: 0, write: 0 };
    const blocks = requestBlocks(body);
    const marks = blocks.flatMap((block, index) => (block.marked ? [index] : []));
    if (body.cache_control != null && blocks.length > 0 && !marks.includes(blocks.length - 1))
      marks.push(blocks.length - 1);
    if (marks.length === 0) return { read: 0, write: 0 };
    // the hash of each prefix, and its tokens
    const hashes: string[] = [];
    const sums: number[] = [];
    let hash = '';
    let sum = 0;
    for (const block of blocks) {
      hash = createHash('sha256').update(hash).update(block.key).digest('hex');
      sum += block.tokens;
      hashes.push(hash);
      sums.push(sum);
    }
    let readEnd = -1;
    for (const mark of marks) {
      for (let end = mark; end >= Math.max(0, mark - LOOKBACK_BLOCKS); end--) {
        if (this.written.has(hashes[end] as string)) {
          readEnd = Math.max(readEnd, end);
          break;
        }
      }
    }
    for (const mark of marks) this.written.add(hashes[mark] as string);
    const last = Math.max(...marks);
    // the server's count of the request may differ a little from the sum of its blocks: figures are kept within it
    const scale = sum > 0 ? inputTokens / sum : 0;
    const read = readEnd >= 0 ? Math.floor((sums[readEnd] as number) * scale) : 0;
    const upToLast = Math.floor((sums[last] as number) * scale);
    return { read, write: Math.max(0, Math.min(inputTokens, upToLast) - read) };
  }
}
