import { eng } from 'stopword';
import type { MessageMeter } from '../counting/message-meter.js';
import { type CallAction, callActions, describeAction } from '../transcript/call-actions.js';
import { type Message, messageText } from '../transcript/transcript.js';

/** Largest share of the state's bound that the timeline may take. */
export const TIMELINE_SHARE_OF_STATE = 0.15;
/** Key terms of a span: fewest (nothing in it relates to the conversation now) and most (all of it does). */
const MIN_TERMS = 2;
const MAX_TERMS = 6;
/** Terms a span keeps at least once the timeline is shortened, before spans are merged. */
const SHORTEST_TERMS = 3;
/** Newest entries that keep their full detail; older ones keep `SHORTEST_TERMS` terms. */
const DETAILED_ENTRIES = 3;
/** Entries past which the oldest two are merged into one over both ranges. */
const MAX_ENTRIES = 8;
/** Tools whose calls a span names, most called first, and characters of each call's main argument. */
const MAX_ACTIONS = 2;
const MAX_ACTION_ARG_CHARS = 32;
/** Speakers named per span. */
const MAX_SPEAKERS = 4;
/**
 * Characters read of each message for its words: the head of a long tool output says what it is, and reading every
 * character of every message on every fold would cost time in proportion to the whole history.
 */
const MESSAGE_CHARS = 2_000;
/** Characters read of a folded span in all. */
const SPAN_CHARS = 100_000;
/** Messages read to tell how rare a word is in the history, and characters read of each. */
const RARITY_CHARS = 800;
const RARITY_SAMPLE = 200;
/** Characters of the conversation's latest messages read for what it is about now. */
const RECENT_CHARS = 6_000;

const STOPWORDS = new Set(eng);
const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
/** Dates as people and programs write them: `8 May, 2023`, `May 8th 2023`, `2023-05-08`. */
const DATE = new RegExp(
  `\\b(?:\\d{1,2}(?:st|nd|rd|th)? ${MONTH},? \\d{4}|${MONTH} \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}|\\d{4}-\\d{2}-\\d{2})\\b`,
  'gi',
);
/** A chat transcript's speaker prefix: `Caroline: ...` (a name, not an all-caps label such as `THOUGHT:`). */
const SPEAKER = /^(\p{Lu}\p{Ll}[\p{L}'’.-]*(?: \p{Lu}[\p{L}'’.-]*)?):\s/u;
/** A timeline entry: `#13-40 · 8 May 2023 · Caroline, Melanie: term, term`. */
const ENTRY = /^#(\d+)-(\d+)((?: · [^:]*)?): (.*)$/s;

/** The head of `text` up to `chars` characters, a word cut at the end left out. */
function wholeWords(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const head = text.slice(0, chars);
  return /[\p{L}\p{N}_]/u.test(text[chars] as string) ? head.replace(/[\p{L}\p{N}_'’-]+$/u, '') : head;
}

/** Words of four characters or more, lowercased, without stop words, contractions or possessives (`it's`, `life's`). */
function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}][\p{L}\p{N}'’-]*[\p{L}\p{N}]|\p{N}{2,}/gu) ?? []).filter(
    (word) => word.length >= 4 && !STOPWORDS.has(word) && !/['’]/.test(word),
  );
}

/**
 * The timeline entry of a folded span, so folded turns never vanish without a trace: where it was (message numbers),
 * when (the first and last dates its messages write, if any), who spoke (the names of a chat transcript's `Name:`
 * prefixes, if any), and its key terms: in the span (repeats counting less and less) and rare in the whole history. Its detail
 * follows its relevance to the conversation now (the first user message, which usually states the goal, and the
 * latest messages): a span that shares many terms with it keeps up to 6 terms, an unrelated one 2.
 */
export function timelineEntry({
  messages,
  span,
  from,
  to,
}: {
  /** The whole history. */
  messages: readonly Message[];
  /** The messages folded, as the summarizer saw them (redacted results replaced). */
  span: readonly Message[];
  /** Where the span was in the history, `from` inclusive, `to` exclusive. */
  from: number;
  to: number;
}): string {
  const headOf = (message: Message, chars = MESSAGE_CHARS) => wholeWords(messageText(message), chars);
  // a long span is read at most SPAN_CHARS in all, evenly from each message's head
  const spanChars = Math.max(200, Math.min(MESSAGE_CHARS, Math.floor(SPAN_CHARS / Math.max(1, span.length))));
  const texts = span.map((message) => headOf(message, spanChars));
  // how rare a word is, from at most 200 messages spread over the history: a fold costs the same at any length
  const stride = Math.max(1, Math.ceil(messages.length / RARITY_SAMPLE));
  const documents = new Map<string, number>();
  let sampled = 0;
  for (let index = 0; index < messages.length; index += stride) {
    sampled++;
    for (const word of new Set(wordsOf(headOf(messages[index] as Message, RARITY_CHARS)))) {
      documents.set(word, (documents.get(word) ?? 0) + 1);
    }
  }
  // who spoke is named apart; their names are not what the span was about
  const names = new Set(texts.map((text) => SPEAKER.exec(text)?.[1]?.toLowerCase()).filter(Boolean));
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const word of wordsOf(text)) if (!names.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  // repeats in the span count with diminishing returns (log), rarity in the history in full
  const weight = (word: string) =>
    Math.log(1 + (counts.get(word) as number)) * Math.log(1 + sampled / (documents.get(word) ?? 0.5));
  const ranked = [...counts.keys()].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));

  // the first user message usually states the goal; inside the span it says nothing about the span's relevance
  const goal = messages.findIndex((message) => message.role === 'user' && !message.synthetic);
  let recent = goal !== -1 && (goal < from || goal >= to) ? headOf(messages[goal] as Message) : '';
  for (let index = messages.length - 1; index >= to && recent.length < RECENT_CHARS; index--) {
    recent += `\n${headOf(messages[index] as Message)}`;
  }
  const now = new Set(wordsOf(recent));
  const top = ranked.slice(0, MAX_TERMS);
  const related = top.length === 0 ? 0 : top.filter((word) => now.has(word)).length / top.length;
  const count = Math.round(MIN_TERMS + (MAX_TERMS - MIN_TERMS) * Math.min(1, 2 * related));
  // what the span's tool calls did comes first (kept when the entry is shortened): the words of a tool loop's
  // outputs are mostly code and logs, its calls say what was done and on what
  const actions = callActions(span, MAX_ACTION_ARG_CHARS)
    .sort((a, b) => b.count - a.count)
    .slice(0, MAX_ACTIONS)
    .map(describeAction);
  const terms = [...actions, ...ranked.slice(0, Math.max(actions.length > 0 ? 0 : MIN_TERMS, count - actions.length))];

  // names from a transcript's `Name:` prefixes; roles alone say nothing the model does not know
  const speakers: string[] = [];
  for (const text of texts) {
    const name = SPEAKER.exec(text)?.[1];
    if (name && !speakers.includes(name) && speakers.length < MAX_SPEAKERS) speakers.push(name);
  }
  const dates = texts.flatMap((text) => text.match(DATE) ?? []);
  const when = dates.length === 0 ? '' : dates[0] === dates.at(-1) ? dates[0] : `${dates[0]} to ${dates.at(-1)}`;
  const head = [`#${from + 1}-${to}`, when, speakers.join(', ')].filter((piece) => piece !== '').join(' · ');
  return `${head}: ${terms.join(', ')}`;
}

/**
 * A timeline with a new entry: detail decays with age, as in a person's memory of a long conversation. The newest
 * three entries keep their detail, older ones their first terms, and past eight entries the oldest two become one
 * over both ranges; no span is dropped. Deterministic, so the state is the same wherever it is computed.
 */
export function appendToTimeline(timeline: readonly string[] | undefined, entry: string): string[] {
  let entries = [...(timeline ?? []), entry];
  entries = entries.map((each, index) =>
    index < entries.length - DETAILED_ENTRIES ? shorten(each, SHORTEST_TERMS) : each,
  );
  while (entries.length > MAX_ENTRIES)
    entries = [merge(entries[0] as string, entries[1] as string), ...entries.slice(2)];
  return entries;
}

/**
 * Holds a timeline to `maxTokens` without losing a span: the oldest entries are shortened to their first terms (the
 * newest keeps its detail), then the oldest neighbours are merged into one entry over both ranges (their first terms, no dates or speakers),
 * until it fits or a single entry is left.
 */
export function fitTimeline(timeline: readonly string[], maxTokens: number, meter: MessageMeter): string[] {
  let entries = [...timeline];
  const tokens = () => meter.countText(JSON.stringify(entries));
  for (let index = 0; index < entries.length - 1 && tokens() > maxTokens; index++) {
    entries[index] = shorten(entries[index] as string, SHORTEST_TERMS);
  }
  while (entries.length > 1 && tokens() > maxTokens) {
    entries = [merge(entries[0] as string, entries[1] as string), ...entries.slice(2)];
  }
  return entries;
}

function parse(entry: string) {
  const match = ENTRY.exec(entry);
  if (!match) return undefined;
  return {
    from: match[1] as string,
    to: match[2] as string,
    head: match[3] ?? '',
    terms: (match[4] ?? '').split(', '),
  };
}

function shorten(entry: string, count: number): string {
  const parsed = parse(entry);
  if (!parsed || parsed.terms.length <= count) return entry;
  return `#${parsed.from}-${parsed.to}${parsed.head}: ${parsed.terms.slice(0, count).join(', ')}`;
}

function merge(first: string, second: string): string {
  const a = parse(first);
  const b = parse(second);
  if (!a || !b) return `${first}; ${second}`;
  const words = (terms: readonly string[]) => terms.filter((term) => term !== '' && !term.includes(' ')).slice(0, 2);
  const actions = mergeActions([...a.terms, ...b.terms].flatMap((term) => parseAction(term) ?? []))
    .sort((x, y) => y.count - x.count)
    .slice(0, MAX_ACTIONS)
    .map(describeAction);
  const terms = [...new Set([...actions, ...words(a.terms), ...words(b.terms)])];
  return `#${a.from}-${b.to}: ${terms.join(', ')}`;
}

/**
 * An action term as `describeAction` wrote it (`readFile src/a.ts`, `readFile x6 (src/a.ts ... src/f.ts; 1 failed)`),
 * read back; a key word (no space) is none.
 */
function parseAction(term: string): CallAction | undefined {
  const many = /^(\S+) x(\d+)(?: \((.*)\))?$/.exec(term);
  if (many) {
    const notes = (many[3] ?? '').split('; ');
    const failed = /^(\d+) failed$/.exec(notes.at(-1) ?? '');
    const shown = failed ? notes.slice(0, -1).join('; ') : notes.join('; ');
    const args = shown === '' ? [] : shown.split(' ... ');
    return { name: many[1] as string, count: Number(many[2]), args, errors: failed ? Number(failed[1]) : 0 };
  }
  const one = /^(\S+) (.+?)( \(failed\))?$/.exec(term);
  return one ? { name: one[1] as string, count: 1, args: [one[2] as string], errors: one[3] ? 1 : 0 } : undefined;
}

/** The actions of two spans, one per tool: the calls and errors added up, the first span's first argument to the last's. */
function mergeActions(actions: readonly CallAction[]): CallAction[] {
  const byName = new Map<string, CallAction>();
  for (const action of actions) {
    const known = byName.get(action.name);
    if (!known) {
      byName.set(action.name, action);
      continue;
    }
    const args = [known.args[0], action.args.at(-1) ?? known.args.at(-1)].filter(
      (arg, index, all): arg is string => arg !== undefined && all.indexOf(arg) === index,
    );
    byName.set(action.name, {
      name: action.name,
      count: known.count + action.count,
      args,
      errors: known.errors + action.errors,
    });
  }
  return [...byName.values()];
}
