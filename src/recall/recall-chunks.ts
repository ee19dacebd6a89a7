import type { CallFacts } from '../call/call-facts.js';
import type { FilePart, Message, Part } from '../transcript/transcript.js';
import { partText } from '../transcript/transcript.js';

/** Longest chunk of a message that recall quotes on its own, in characters (about 300 tokens of English). */
export const MAX_RECALL_CHUNK_CHARS = 1_200;

/** One piece of an earlier message that recall can quote: a whole short message, or a run of lines of a long one. */
export interface RecallChunk {
  /** `message:chunk`, stable for a message at an index whatever the engine instance. */
  readonly id: string;
  readonly message: number;
  readonly text: string;
  /** Who said it: `user`, `assistant`, or `tool <name>` for a tool result. */
  readonly from: string;
  /** `2/5` when the message has several chunks. */
  readonly part?: string;
}

/** A message as recall cuts it: who said it and the texts of its chunks. */
interface CutMessage {
  readonly from: string;
  readonly pieces: readonly string[];
}

/**
 * The chunks of a message, cut by characters, never by a token counter, so every engine instance cuts a stored
 * choice the same way. Short messages are one chunk; long ones are cut at line ends (a single long line at a space).
 */
export function chunksOf(message: Message, index: number): RecallChunk[] {
  return chunksAt(cutMessage(message), index);
}

/** Indexes of the messages holding a result the model redacted: recall never quotes them. */
export function redactedMessages(facts: Pick<CallFacts, 'redactions' | 'siteByKey'>): ReadonlySet<number> {
  const indexes = new Set<number>();
  for (const key of facts.redactions.keys()) {
    const site = facts.siteByKey.get(key);
    if (site) indexes.add(site.messageIndex);
  }
  return indexes;
}

/**
 * The chunks that recall items (`message:chunk` ids) name in a history; ids that name nothing there (a record written
 * for another history) are skipped.
 */
export function recalledChunks(
  messages: readonly Message[],
  items: readonly string[],
  chunksOfMessage: (message: Message, index: number) => RecallChunk[] = chunksOf,
): RecallChunk[] {
  const chunks: RecallChunk[] = [];
  for (const id of items) {
    const [message, chunk] = id.split(':').map(Number) as [number, number];
    const found = messages[message] ? chunksOfMessage(messages[message], message)[chunk] : undefined;
    if (found) chunks.push(found);
  }
  return chunks;
}

/**
 * The recall chunks of messages, cut once per message object. One per engine instance (its recall stage owns it and
 * hands it to the index and the blocks): the cut depends on a message's text alone, but a cache shared by every
 * instance would outlive none of them. Keyed by the message object: the engine never changes a message it read.
 */
export class MessageChunks {
  private readonly cuts = new WeakMap<Message, CutMessage>();

  /** The chunks of the message at `index` (see `chunksOf`). */
  of(message: Message, index: number): RecallChunk[] {
    let cut = this.cuts.get(message);
    if (!cut) {
      cut = cutMessage(message);
      this.cuts.set(message, cut);
    }
    return chunksAt(cut, index);
  }

  /** The chunks that recall items name in a history (see `recalledChunks`). */
  named(messages: readonly Message[], items: readonly string[]): RecallChunk[] {
    return recalledChunks(messages, items, (message, index) => this.of(message, index));
  }
}

function cutMessage(message: Message): CutMessage {
  return { from: speakerOf(message), pieces: cut(recallableText(message.parts)) };
}

function chunksAt({ from, pieces }: CutMessage, index: number): RecallChunk[] {
  return pieces.map((text, chunk) => ({
    id: `${index}:${chunk}`,
    message: index,
    text,
    from,
    ...(pieces.length > 1 ? { part: `${chunk + 1}/${pieces.length}` } : {}),
  }));
}

function speakerOf(message: Message): string {
  if (message.role !== 'tool') return message.role;
  const names = new Set<string>();
  for (const part of message.parts) if (part.type === 'tool-result') names.add(part.name);
  return names.size > 0 ? `tool ${[...names].join(', ')}` : 'tool';
}

/** What a message says, without reasoning (never sent back) or file stand-ins. */
function recallableText(parts: readonly Part[]): string {
  return parts
    .filter((part) => part.type !== 'reasoning' && part.type !== 'file')
    .map(partText)
    .join('\n')
    .trim();
}

function cut(text: string): string[] {
  if (text === '') return [];
  if (text.length <= MAX_RECALL_CHUNK_CHARS) return [text];
  const pieces: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim() !== '') pieces.push(current.trim());
    current = '';
  };
  for (const line of text.split('\n')) {
    for (const piece of splitLongLine(line)) {
      if (current.length + piece.length + 1 > MAX_RECALL_CHUNK_CHARS) flush();
      current = current === '' ? piece : `${current}\n${piece}`;
    }
  }
  flush();
  return pieces;
}

function splitLongLine(line: string): string[] {
  if (line.length <= MAX_RECALL_CHUNK_CHARS) return [line];
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > MAX_RECALL_CHUNK_CHARS) {
    const space = rest.lastIndexOf(' ', MAX_RECALL_CHUNK_CHARS);
    const at = space > MAX_RECALL_CHUNK_CHARS / 2 ? space : MAX_RECALL_CHUNK_CHARS;
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at).trimStart();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/** Words by which a message refers to a file or an image it does not hold. */
const FILE_WORDS =
  /\b(?:images?|photos?|pictures?|pics?|screenshots?|diagrams?|charts?|graphs?|figures?|drawings?|sketch(?:es)?|scans?|pdfs?|documents?|attachments?|attached|slides?|videos?|recordings?|files?)\b/i;

/** The recall item naming the files of the message at `message`: the block brings them back with its text. */
export const filesItem = (message: number) => `${message}:files`;

/**
 * The files a choice of recall brings back with a chunk: when the message it is made for (at `at`) refers to a file
 * (a word for one, or a file's name) and the chunk opens a user message or a tool result, its files (see
 * `messageFiles`), each at most half of the recall block's cap (a larger one is named by the state, its message's text
 * quoted alone). The choice stores them as `filesItem`, so every instance renders the same block whatever its cap is
 * by then.
 */
export function filesToRecall(
  messages: readonly Message[],
  at: number,
  chunk: Pick<RecallChunk, 'id' | 'message'>,
  maxRecallTokens: number,
): FilePart[] {
  const message = messages[chunk.message];
  if ((message?.role !== 'user' && message?.role !== 'tool') || !chunk.id.endsWith(':0')) return [];
  const asked = (messages[at]?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join(' ');
  return messageFiles(message).filter((file) => file.tokens <= maxRecallTokens / 2 && refersTo(asked, file));
}

/**
 * The files of a message recall can bring back: a user message's file parts, and the files of a tool message's
 * results (those the engine had not replaced). A user message carries them back either way: a provider that takes an
 * image in a tool result takes one in a user message.
 */
function messageFiles(message: Message): FilePart[] {
  return message.parts.flatMap((part) =>
    part.type === 'file' ? [part] : part.type === 'tool-result' && !part.edited ? [...(part.files ?? [])] : [],
  );
}

/** The file parts the `filesItem`s of a choice name, in the order named. */
export function recalledFiles(messages: readonly Message[], items: readonly string[]): FilePart[] {
  return items.flatMap((item) => {
    const [index, kind] = item.split(':');
    const message = kind === 'files' ? messages[Number(index)] : undefined;
    return message ? messageFiles(message) : [];
  });
}

function refersTo(asked: string, file: FilePart): boolean {
  if (FILE_WORDS.test(asked)) return true;
  const stem = file.name?.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  return stem !== undefined && stem.length >= 3 && asked.toLowerCase().includes(stem.toLowerCase());
}
