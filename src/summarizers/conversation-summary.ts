import { type CallAction, cutAtWord, describeAction } from '../transcript/call-actions.js';
import type { Message, Role } from '../transcript/transcript.js';

/** Characters of the first request and of the latest turn quoted in a summary. */
const SUMMARY_SNIPPET_CHARS = 160;

/** Topics named in a summary, and the fewest folded messages a word must appear in to be one. */
const MAX_TOPICS = 4;
const TOPIC_MESSAGES = 2;
/** Tools named in a summary, most used first. */
const MAX_TOOLS = 3;

/**
 * Words that recur across the folded messages (in two or more of them, five letters or more, not stop words or the
 * speakers' names), most widespread first: what the folded part was about.
 */
export function topicsOf(messages: readonly Message[], speakerNames: ReadonlySet<string>): string[] {
  const spread = new Map<string, number>();
  for (const message of messages) {
    if (message.synthetic || (message.role !== 'user' && message.role !== 'assistant')) continue;
    const words = new Set<string>();
    for (const part of message.parts) {
      if (part.type !== 'text') continue;
      for (const word of part.text.match(/\p{L}{5,}/gu) ?? []) {
        const lower = word.toLowerCase();
        if (!TOPIC_STOPWORDS.has(lower) && !speakerNames.has(word)) words.add(lower);
      }
    }
    for (const word of words) spread.set(word, (spread.get(word) ?? 0) + 1);
  }
  return [...spread]
    .filter(([, count]) => count >= TOPIC_MESSAGES)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_TOPICS)
    .map(([word]) => word);
}

/** Topics named per speaker in a conversation's summary. */
const TOPICS_PER_SPEAKER = 3;

/**
 * Who spoke of what: per speaker (a chat's `Name:` label when `labelOf` finds one, else the role), in order of first
 * turn, the words that recur across their own messages (see `topicsOf`). Speakers with none are left out.
 */
export function speakerTopics(
  messages: readonly Message[],
  labelOf: (message: Message) => string | undefined,
  speakerNames: ReadonlySet<string>,
): Array<{ readonly who: string; readonly topics: readonly string[] }> {
  const bySpeaker = new Map<string, Message[]>();
  for (const message of messages) {
    if (message.synthetic || (message.role !== 'user' && message.role !== 'assistant')) continue;
    const who = labelOf(message) ?? `the ${message.role}`;
    bySpeaker.set(who, [...(bySpeaker.get(who) ?? []), message]);
  }
  return [...bySpeaker]
    .map(([who, own]) => ({ who, topics: topicsOf(own, speakerNames).slice(0, TOPICS_PER_SPEAKER) }))
    .filter(({ topics }) => topics.length > 0);
}

/** Common long words that say nothing about a topic. */
const TOPIC_STOPWORDS = new Set(
  'about above after again against because before being below between could doing during further having itself might other ought really should their theirs there these thing things think those through under until where which while would yours yourself yourselves always never maybe still going great thanks thank sounds awesome amazing definitely totally pretty something anything everything nothing someone everyone actually probably wanted right little'.split(
    ' ',
  ),
);

/**
 * The bridge of a fold: who took part and what they did (the tools called, how often and on what) or, without tools,
 * what the folded messages were about (their recurring words), the first request among them and the latest turn. How many messages were folded, and where, is the
 * timeline's to say (the engine keeps one entry per fold).
 */
export function summaryOf({
  counts,
  first,
  latest,
  who,
  topics,
  spoke = [],
  actions,
}: {
  counts: Record<Role, number>;
  first: string;
  latest: string;
  who: readonly string[];
  topics: readonly string[];
  /** Who spoke of what (see `speakerTopics`): a conversation's summary names it in place of the topics. */
  spoke?: ReadonlyArray<{ readonly who: string; readonly topics: readonly string[] }>;
  /** What the messages' tool calls did (see `callActions`). */
  actions: readonly CallAction[];
}) {
  const total = counts.system + counts.user + counts.assistant + counts.tool;
  if (total === 0) return '';
  const parts: string[] = [];
  const people = who.length > 0 ? listed(who) : actions.length > 0 ? 'The assistant' : 'The user and the assistant';
  const used = [...actions]
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
    .slice(0, MAX_TOOLS)
    .map(describeAction);
  // a tool loop says what was done and with what; a conversation, who spoke of what
  if (used.length > 0) parts.push(`${people} called ${listed(used)}.`);
  else if (spoke.length > 0) {
    const said = spoke
      .map(({ who: speaker, topics: own }, index) => `${speaker} ${index === 0 ? 'spoke of' : 'of'} ${listed(own)}`)
      .join('; ');
    parts.push(`${said.charAt(0).toUpperCase()}${said.slice(1)}.`);
  } else if (topics.length > 0) parts.push(`${people} talked about ${listed(topics)}.`);
  const snippet = (text: string) => {
    const cutSnippet = cutText(text.replace(/\s+/g, ' '), SUMMARY_SNIPPET_CHARS);
    return /[.!?…]$/.test(cutSnippet) ? cutSnippet : `${cutSnippet}.`;
  };
  if (first) parts.push(`First request: ${snippet(first)}`);
  if (latest && latest !== first) parts.push(`Latest: ${snippet(latest)}`);
  return parts.join(' ');
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** `text`, cut to `maxChars` at a word's end with an ellipsis (see `cutAtWord`). */
export function cutText(text: string, maxChars: number): string {
  return cutAtWord(text, maxChars);
}
